package proto

import "slices"

// This file is the part of the wire a drawing client (the TUI) speaks: it
// watches every chat's state and terminal, pulls a screen or a transcript
// when it is about to draw it, and sends keys and sizes. A chat's screen
// never travels unasked: a flood of output is at most one small
// notification per frame per client, and the client asks for the text of
// the one chat it shows.

// The methods of a drawing client.
const (
	// MethodWatch makes the connection a watcher: it answers
	// {states: {id: ChatView}} for every chat the mux knows, and the server
	// then sends NotifyChanged as chats change.
	MethodWatch = "_acpmux/watch"
	// MethodShow names the chats the watcher draws ({ids}): of every other
	// chat it is told only when the chat's state changes, not on each
	// change of its screen, and at most four times a second (the changes
	// of a quarter of a second together, each chat as it is then, sooner
	// with a change of a chat it draws). The chats newly named are told at
	// once, as they are now. Until a watcher calls it, it draws every chat.
	MethodShow = "_acpmux/show"
	// MethodRender answers {text}: a chat's screen with SGR styling,
	// scrolled up by scroll lines (0 is the live screen).
	MethodRender = "_acpmux/render"
	// MethodTranscript answers {entries}: an ACP chat's transcript.
	MethodTranscript = "_acpmux/transcript"
	// MethodWrite sends bytes to a chat's harness. When the caller's size
	// (from watch or resize) differs from the chat's pty, the pty takes the
	// caller's size first: the client that last typed or resized sizes it.
	MethodWrite = "_acpmux/write"
	// MethodResize sets every chat's pty to {cols, rows} and remembers the
	// size as the caller's.
	MethodResize = "_acpmux/resize"
	// MethodForget stops a chat and drops its screen (the chat is being
	// deleted).
	MethodForget = "_acpmux/forget"
	// MethodCreateAndStart creates a chat as MethodNew does and starts its
	// harness in a pty of {cols, rows}, taking a prewarmed one when it can;
	// it answers the chat's JSON.
	MethodCreateAndStart = "_acpmux/createAndStart"
	// MethodFill starts prewarmed harnesses up to each one's pool size.
	MethodFill = "_acpmux/fill"
	// MethodBudget ({bytesPerSecond}) bounds the screen updates sent to
	// this watcher: a link to another host sets it (client.DialHost), so
	// a chat flooding over there cannot starve the others. Over budget the
	// screens coalesce further (the latest screen wins) and the chats
	// waiting take turns. 0 lifts the bound.
	MethodBudget = "_acpmux/budget"

	// NotifyChanged is sent to a watcher with {states: {id: ChatView}}: the
	// chats that changed since the last one, as they are now. A watcher
	// gets at most one per frame and never more than one waiting in its
	// queue.
	NotifyChanged = "_acpmux/changed"
	// NotifyScreen is sent to a watcher with a ScreenUpdate in place of a
	// NotifyChanged for a chat it draws, when only that chat's screen and
	// cursor changed since it was last told of it (a key's echo): the
	// same news, quicker to write and to read.
	NotifyScreen = "_acpmux/screen"
)

// ChatView is a chat as a watcher sees it without asking for its screen:
// its harness's state and its terminal's modes, cursor and size. Both are
// State and Terminal as encoding/json writes them (Go's field names). In a
// notification, a chat the watcher named with MethodShow also carries its
// screen, rendered as the notification is sent: the client draws it
// without asking.
type ChatView struct {
	State    State        `json:"state"`
	Terminal Terminal     `json:"terminal"`
	Screen   *ScreenPatch `json:"screen,omitempty"`
}

// ScreenPatch is a chat's live screen as MethodRender answers it (lines
// joined by "\n"), told to a client that draws it. Full is the whole
// screen; without it, Rows are the lines (by number from 0) that differ
// from the screen last told to this client, which has as many lines: the
// others are as they were. The first screen told after the chat is named
// is whole, and so is one whose number of lines changed.
type ScreenPatch struct {
	Full *string        `json:"full,omitempty"`
	Rows map[int]string `json:"rows,omitempty"`
}

// ScreenUpdate is the params of NotifyScreen: the chat's screen patch and
// where its cursor is now (column and row, from 0). Its state and the rest
// of its terminal are as last told.
type ScreenUpdate struct {
	ID     string      `json:"id"`
	Cursor [2]int      `json:"cursor"`
	Screen ScreenPatch `json:"screen"`
}

// SizeParams are the params of MethodWatch and MethodResize: the caller's
// pane size. For watch, 0 means not known yet.
type SizeParams struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// StatesResult is the answer to MethodWatch and the params of
// NotifyChanged.
type StatesResult struct {
	States map[string]ChatView `json:"states"`
}

// RenderParams are the params of MethodRender.
type RenderParams struct {
	ID     string `json:"id"`
	Scroll int    `json:"scroll,omitempty"`
}

// RenderResult is the answer to MethodRender.
type RenderResult struct {
	Text string `json:"text"`
}

// TranscriptParams are the params of MethodTranscript.
type TranscriptParams struct {
	ID string `json:"id"`
	// Epoch and Since are what the client holds: the transcript Epoch
	// (TranscriptResult.Epoch) as of its change Since (TranscriptResult.Seq).
	// With them the answer is a Delta; without (0), or when the
	// transcript is another now, the whole transcript.
	Epoch uint64 `json:"epoch,omitempty"`
	Since uint64 `json:"since,omitempty"`
}

// ShowParams are the params of MethodShow.
type ShowParams struct {
	IDs []string `json:"ids"`
}

// ForgetParams are the params of MethodForget.
type ForgetParams struct {
	ID string `json:"id"`
}

// TranscriptResult is the answer to MethodTranscript.
type TranscriptResult struct {
	// Entries is the whole transcript, when the answer is not a Delta.
	Entries []Entry `json:"entries"`
	// TurnRunning is set when a turn was running as the transcript was
	// copied: its last entries are as its last complete update left them.
	TurnRunning bool `json:"turnRunning,omitempty"`
	// Epoch names the transcript and Seq counts its changes: a client
	// sends both back to be told only what changed after (0 from a server
	// that does not count them: every answer is then whole).
	Epoch uint64 `json:"epoch,omitempty"`
	Seq   uint64 `json:"seq,omitempty"`
	// Base and Len are where the transcript starts and ends in the whole
	// conversation (entries are cut from the front past a bound): entry i
	// of Entries is the conversation's Base+i.
	Base int64 `json:"base,omitempty"`
	Len  int64 `json:"len,omitempty"`
	// Delta is set when the answer holds only Changed: the entries changed
	// after the client's Since, each with its place; the client drops what
	// it holds before Base and after Len.
	Delta   bool          `json:"delta,omitempty"`
	Changed []PlacedEntry `json:"changed,omitempty"`
}

// PlacedEntry is an entry and its place in the whole conversation.
type PlacedEntry struct {
	At    int64 `json:"at"`
	Entry Entry `json:"entry"`
}

// ApplyDelta is held (a client's copy of a transcript: its entries, the
// first being the conversation's base) with the Delta d applied: entries
// before d.Base dropped, after d.Len cut, and each changed one put in its
// place. ok is false when d does not fit what is held (a change past
// the end of the held entries with a gap before it): ask for the whole.
func ApplyDelta(held []Entry, base int64, d TranscriptResult) (out []Entry, ok bool) {
	if d.Base < base || d.Len < d.Base {
		return nil, false
	}
	if drop := d.Base - base; drop > 0 {
		held = held[min(drop, int64(len(held))):]
	}
	want := int(d.Len - d.Base)
	if len(held) > want {
		held = held[:want]
	}
	out = slices.Clone(held)
	for _, c := range d.Changed {
		i := c.At - d.Base
		switch {
		case i < 0 || i >= int64(want) || i > int64(len(out)):
			return nil, false
		case i == int64(len(out)):
			out = append(out, c.Entry)
		default:
			out[i] = c.Entry
		}
	}
	if len(out) != want {
		return nil, false
	}
	return out, true
}

// WriteParams are the params of MethodWrite; Data is base64 on the wire.
type WriteParams struct {
	ID   string `json:"id"`
	Data []byte `json:"data"`
}

// CreateAndStartParams are the params of MethodCreateAndStart: those of
// MethodNew and the pty's size (0: 80x24).
type CreateAndStartParams struct {
	NewParams
	Cols int `json:"cols,omitempty"`
	Rows int `json:"rows,omitempty"`
}

// MethodHistory answers {lines}: a pty chat's scrollback and screen as
// plain text lines, oldest first, at most maxBytes (0 or more than
// MaxHistoryBytes: that limit). A handoff's capsule reads it.
const MethodHistory = "_acpmux/history"

// MaxHistoryBytes bounds the lines MethodHistory answers.
const MaxHistoryBytes = 4 << 20

// HistoryParams are the params of MethodHistory.
type HistoryParams struct {
	ID       string `json:"id"`
	MaxBytes int    `json:"maxBytes,omitempty"`
}

// HistoryResult is the answer to MethodHistory.
type HistoryResult struct {
	Lines []string `json:"lines"`
}

// BudgetParams are the params of MethodBudget.
type BudgetParams struct {
	BytesPerSecond int64 `json:"bytesPerSecond"`
}

// MinBudget is the least bytes per second MethodBudget takes (other than
// 0): a 160x45 screen's update fits in a second of it.
const MinBudget = 16 << 10
