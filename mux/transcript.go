package mux

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/charmbracelet/x/ansi"
)

// EntryKind is what a transcript entry holds.
type EntryKind int

// The kinds of transcript entries.
const (
	EntryUser EntryKind = iota
	EntryAgent
	EntryThought
	EntryTool
	EntryPlan
	EntryNote  // said by acpmux-tui itself: a folder note, a turn's end, an error
	EntryError // an error in the chat
	// EntryStderr is a line the agent wrote on its stderr. It reaches
	// observers (Mux.Observe) only and is never kept in the transcript.
	EntryStderr
)

// NoReplyAfter is how long a running turn may go without any update from
// the agent before the chat pane and the prompt command say "no reply yet".
const NoReplyAfter = 10 * time.Second

// noteCancelled is the mark a turn the user cancelled leaves.
const noteCancelled = "turn cancelled"

// Entry is one item of an ACP chat's transcript. Everything in it that came
// from the agent has been through plaintext: no control character but
// newline and tab, and none at all in one-line fields (Title, ToolStatus,
// Plan).
type Entry struct {
	Kind EntryKind
	// Text is the message, thought or note text.
	Text string
	// ToolCallID, Title and ToolStatus describe a tool call.
	ToolCallID string
	Title      string
	ToolStatus string
	// Paths are the files a tool call names (its ACP locations) or wrote
	// through fs/write_text_file, cleaned to one line each, at most
	// maxEntryPaths.
	Paths []string `json:",omitempty"`
	// Plan holds a plan's entries as "[status] text".
	Plan []string
	// MessageID is the agent's id for the message a chunk belongs to
	// (ACP's unstable messageId), "" when the agent sends none.
	MessageID string
	// At is when the entry was added or last changed.
	At time.Time
}

// maxTranscriptEntries bounds an ACP chat's transcript in memory; older
// entries are dropped (the agent keeps the full history). The transcript
// grows to transcriptSlack past it and is then cut back to it at once, so
// a long replay (a session/load of 10,000 entries) copies the kept entries
// once per transcriptSlack added, not once per entry.
const (
	maxTranscriptEntries = 5000
	transcriptSlack      = maxTranscriptEntries / 4
)

// maxEntryText bounds one entry's text.
const maxEntryText = 1 << 20

// maxEntryPaths bounds the paths one tool entry keeps, and maxPathBytes
// one path.
const (
	maxEntryPaths = 64
	maxPathBytes  = 4096
)

// transcript is an ACP chat's conversation as streamed by the agent, and
// where its running turn stands.
type transcript struct {
	entries []Entry
	// cancelled is set when the user cancels the running turn, until the
	// next turn starts: the turn's end leaves one mark, and permission
	// requests that arrive meanwhile are answered "cancelled".
	cancelled bool
}

// add appends an entry, cleaning what it shows.
func (t *transcript) add(e Entry) {
	e.Text = plaintext.Clean(e.Text)
	e.Title, e.ToolStatus = plaintext.Line(e.Title), plaintext.Line(e.ToolStatus)
	for i, p := range e.Plan {
		e.Plan[i] = plaintext.Line(p)
	}
	paths := e.Paths
	e.Paths = nil
	e.addPaths(paths)
	if e.At.IsZero() {
		e.At = time.Now()
	}
	t.entries = append(t.entries, e)
	if len(t.entries) > maxTranscriptEntries+transcriptSlack {
		t.entries = append(t.entries[:0:0], t.entries[len(t.entries)-maxTranscriptEntries:]...)
	}
}

// appendText adds a streamed chunk to the message it belongs to, else starts
// a new one. A chunk belongs to the last entry when that entry is of its
// kind and has its message id. Without message ids (ACP v1 stable has
// none), agent messages and thoughts are streamed, so their chunks join;
// a user message is sent whole (a session/load replays each prompt as its
// own chunk), so each user chunk without an id is a message of its own:
// two prompts replayed back to back stay two messages.
func (t *transcript) appendText(kind EntryKind, text, messageID string) {
	if n := len(t.entries); n > 0 {
		e := &t.entries[n-1]
		joins := e.Kind == kind && e.MessageID == messageID && (kind != EntryUser || messageID != "")
		if joins {
			text = plaintext.Clean(text)
			if len(e.Text)+len(text) <= maxEntryText {
				e.Text += text
			}
			e.At = time.Now()
			return
		}
	}
	t.add(Entry{Kind: kind, Text: text, MessageID: messageID})
}

// tool records a tool call or an update to one.
func (t *transcript) tool(id, title, status string) {
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := &t.entries[i]
		if e.Kind == EntryTool && e.ToolCallID == id {
			if title != "" {
				e.Title = plaintext.Line(title)
			}
			if status != "" {
				e.ToolStatus = plaintext.Line(status)
			}
			e.At = time.Now()
			return
		}
	}
	if status == "" {
		status = "pending"
	}
	t.add(Entry{Kind: EntryTool, ToolCallID: id, Title: title, ToolStatus: status})
}

// addPaths adds paths the entry does not have yet, cleaned and bounded.
func (e *Entry) addPaths(paths []string) {
	for _, p := range paths {
		p = plaintext.Line(p)
		if p == "" || len(p) > maxPathBytes || len(e.Paths) >= maxEntryPaths || slices.Contains(e.Paths, p) {
			continue
		}
		e.Paths = append(e.Paths, p)
	}
}

// toolPaths adds the files a tool call names to its entry.
func (t *transcript) toolPaths(id string, paths []string) {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if e := &t.entries[i]; e.Kind == EntryTool && e.ToolCallID == id {
			e.addPaths(paths)
			return
		}
	}
}

// wrote records a file the agent wrote through fs/write_text_file: on the
// latest tool call of the running turn (the one that wrote it), else as a
// tool entry of its own.
func (t *transcript) wrote(path string) {
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := &t.entries[i]
		if e.Kind == EntryUser {
			break
		}
		if e.Kind == EntryTool {
			e.addPaths([]string{path})
			return
		}
	}
	t.add(Entry{Kind: EntryTool, Title: "write " + path, ToolStatus: "completed", Paths: []string{path}})
}

func (t *transcript) plan(items []string) {
	if n := len(t.entries); n > 0 && t.entries[n-1].Kind == EntryPlan {
		for i, p := range items {
			items[i] = plaintext.Line(p)
		}
		t.entries[n-1].Plan = items
		t.entries[n-1].At = time.Now()
		return
	}
	t.add(Entry{Kind: EntryPlan, Plan: items})
}

// startTurn records the user's prompt at the start of a turn.
func (t *transcript) startTurn(text string) {
	t.cancelled = false
	t.add(Entry{Kind: EntryUser, Text: text})
}

// cancel records that the user cancelled the running turn.
func (t *transcript) cancel() { t.cancelled = true }

// endTurn leaves the turn's one mark: "turn cancelled" when the user
// cancelled it or the agent says it was, else the error, else a stop
// reason other than end_turn.
func (t *transcript) endTurn(reason string, err error) {
	switch {
	case t.cancelled || err == nil && reason == "cancelled":
		t.add(Entry{Kind: EntryNote, Text: noteCancelled})
	case err != nil:
		t.add(Entry{Kind: EntryError, Text: err.Error()})
	case reason != "end_turn":
		t.add(Entry{Kind: EntryNote, Text: "turn ended: " + reason})
	}
	t.cancelled = false
}

func (t *transcript) hasUserMessage() bool {
	for _, e := range t.entries {
		if e.Kind == EntryUser {
			return true
		}
	}
	return false
}

func (t *transcript) copyEntries() []Entry {
	out := make([]Entry, len(t.entries))
	copy(out, t.entries)
	for i := range out {
		out[i].Plan = append([]string(nil), out[i].Plan...)
		out[i].Paths = append([]string(nil), out[i].Paths...)
	}
	return out
}

// LastUpdate is when the last turn in entries last heard from the agent:
// the latest change to any entry since the last user message, or that
// message itself. It is the zero time for an empty transcript.
func LastUpdate(entries []Entry) time.Time {
	var last time.Time
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].At.After(last) {
			last = entries[i].At
		}
		if entries[i].Kind == EntryUser {
			break
		}
	}
	return last
}

// RenderTranscript lays out entries as plain text lines wrapped to width:
// user and agent messages, thoughts folded to one line, tool calls with their
// status, plans as checklists.
func RenderTranscript(entries []Entry, width int) []string {
	if width < 10 {
		width = 10
	}
	var lines []string
	add := func(prefix, text string) {
		for i, para := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			p := prefix
			if i > 0 {
				p = strings.Repeat(" ", utf8.RuneCountInString(prefix))
			}
			wrapped := ansi.Wrap(para, width-ansi.StringWidth(p), " ")
			for j, l := range strings.Split(wrapped, "\n") {
				if j > 0 {
					p = strings.Repeat(" ", utf8.RuneCountInString(prefix))
				}
				lines = append(lines, p+l)
			}
		}
	}
	for _, e := range entries {
		switch e.Kind {
		case EntryUser:
			add("> ", e.Text)
		case EntryAgent:
			add("", e.Text)
		case EntryThought:
			add("", fmt.Sprintf("▸ thought (%d chars)", utf8.RuneCountInString(e.Text)))
		case EntryTool:
			add("", fmt.Sprintf("⚙ %s [%s]", e.Title, e.ToolStatus))
		case EntryPlan:
			add("", "plan:")
			for _, p := range e.Plan {
				add("  ", p)
			}
		case EntryNote:
			add("· ", e.Text)
		case EntryError:
			add("! ", e.Text)
		}
	}
	return lines
}
