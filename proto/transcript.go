package proto

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// EntryKind is what an entry holds. A transcript (MethodTranscript, a
// bundle's transcript.jsonl) writes it as a number, the stream of an
// observed chat (MethodEntries) by its name (String), as protocol 1 always
// has; UnmarshalJSON reads either.
type EntryKind int

// The kinds of entries. The first seven are a transcript's; the rest are
// the stream's own, never kept in a transcript.
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
	// EntryTurnStarted: a turn started; the agent's updates until
	// EntryTurnEnded are its reply (Text is its prompt). Own is set for the
	// connection whose prompt call started it.
	EntryTurnStarted
	// EntryTurnEnded: the turn ended with StopReason, or failed with Error.
	EntryTurnEnded
	// EntryRefused: a permission request of a turn that refuses them was
	// refused; Title names the tool call that asked.
	EntryRefused
	// EntryNotice is a line of the server's own about the running turn
	// (Text: "no reply yet after 10s").
	EntryNotice
	// EntryMissed: the connection fell so far behind that Count updates in
	// this place were dropped rather than held for it.
	EntryMissed
)

// entryKindNames are the kinds' names, as the stream writes them.
var entryKindNames = [...]string{
	EntryUser: "user", EntryAgent: "agent", EntryThought: "thought", EntryTool: "tool",
	EntryPlan: "plan", EntryNote: "note", EntryError: "error", EntryStderr: "stderr",
	EntryTurnStarted: "turnStarted", EntryTurnEnded: "turnEnded", EntryRefused: "refused",
	EntryNotice: "notice", EntryMissed: "missed",
}

// String returns the kind's name ("agent", "turnEnded"), as the stream of
// an observed chat writes it.
func (k EntryKind) String() string {
	if k >= 0 && int(k) < len(entryKindNames) {
		return entryKindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// UnmarshalJSON reads a kind as a transcript writes it (a number) or as
// the stream does (its name). A name this build does not know, as a newer
// server may send, is read as -1: a kind no switch matches. null leaves k
// as it is.
func (k *EntryKind) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) >= 2 && b[0] == '"' {
		name := b[1 : len(b)-1]
		*k = -1
		for i, n := range entryKindNames {
			if string(name) == n {
				*k = EntryKind(i)
			}
		}
		return nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("entry kind %.20s is neither a number nor a name", b)
	}
	*k = EntryKind(n)
	return nil
}

// NoReplyAfter is how long a running turn may go without any update from
// the agent before the chat pane and the prompt command say "no reply yet".
const NoReplyAfter = 10 * time.Second

// Entry is one item of an ACP chat's transcript, and of the stream of an
// observed chat (ObservedEntry wraps it): one shape from the agent's
// session/update to every client, the door's included. Everything in it
// that came from the agent has been through plaintext: no control
// character but newline and tab, and none at all in one-line fields
// (Title, ToolStatus, Plan, the paths).
type Entry struct {
	Kind EntryKind `json:"kind"`
	// Text is the message, thought or note text.
	Text string `json:"text,omitempty"`
	// MessageID is the agent's id for the message a chunk belongs to
	// (ACP's unstable messageId), "" when the agent sends none.
	MessageID string `json:"messageId,omitempty"`
	// ToolCallID, Title and ToolStatus describe a tool call.
	ToolCallID string `json:"toolCallId,omitempty"`
	Title      string `json:"title,omitempty"`
	ToolStatus string `json:"toolStatus,omitempty"`
	// ToolKind is the tool call's kind as ACP names it (read, edit,
	// delete, move, search, execute, think, fetch, switch_mode, other),
	// "" when the agent gave none.
	ToolKind string `json:"toolKind,omitempty"`
	// Content is what the tool call produced or will change (ACP's
	// ToolCall.content): in a transcript the call's latest (an update that
	// carries content replaces it), at most MaxToolContents.
	Content []ToolContent `json:"content,omitempty"`
	// Size is, when a message's text was cut to the transcript's bound,
	// the bytes the agent sent in all; 0 when nothing was cut.
	Size int64 `json:"size,omitempty"`
	// Links are the files a user's prompt linked (resource_link blocks).
	Links []Link `json:"links,omitempty"`
	// Locations are the files a tool call works on as the agent said them
	// (ACP's ToolCall.locations): in a transcript, the tool call's latest
	// (an update that carries them replaces them); in the stream, the
	// update's own. At most 64 (the mux's bound).
	Locations []Location `json:"locations,omitempty"`
	// Paths are the files a tool call names (its locations) or wrote
	// through fs/write_text_file, gathered over its updates, cleaned to
	// one line each, at most 64 (the mux's bound): what a capsule lists.
	// Only a transcript has them.
	Paths []string `json:"paths,omitempty"`
	// Plan holds a plan's entries as "[status] text".
	Plan []string `json:"plan,omitempty"`
	// PlanItems are the same entries whole, as the agent sent them (ACP's
	// PlanEntry): what the door passes on and the TUI draws as a
	// checklist. Absent in what an older version wrote.
	PlanItems []PlanItem `json:"planItems,omitempty"`
	// At is when the entry was added or last changed.
	At time.Time `json:"at"`
}

// PlanItem is one entry of an agent's plan: its text (one clean line),
// its priority ("high", "medium", "low") and its status ("pending",
// "in_progress", "completed"); a value outside those is kept as "".
type PlanItem struct {
	Content  string `json:"content"`
	Priority string `json:"priority,omitempty"`
	Status   string `json:"status,omitempty"`
}

// Location is a file a tool call reads or changes, as ACP's
// ToolCallLocation names it: its path and, when the agent gives one, a
// line.
type Location struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// planMark is a plan entry's mark, by its status: done, running or
// pending.
func planMark(status string) string {
	switch status {
	case "completed":
		return "  ✓ "
	case "in_progress":
		return "  ▸ "
	}
	return "  ○ "
}

// planPriority says a priority that is not the usual one.
func planPriority(p string) string {
	if p == "high" || p == "low" {
		return " (" + p + ")"
	}
	return ""
}

// maxLocationsShown is how many of a tool call's locations its line
// names; the rest are counted.
const maxLocationsShown = 3

// locationsText is where a tool call works, for its line: " · main.go:42,
// util.go (+2 more)", or "" for none.
func locationsText(locs []Location) string {
	if len(locs) == 0 {
		return ""
	}
	parts := make([]string, 0, maxLocationsShown)
	for _, l := range locs[:min(len(locs), maxLocationsShown)] {
		s := l.Path
		if l.Line != nil {
			s += ":" + strconv.Itoa(*l.Line)
		}
		parts = append(parts, s)
	}
	text := " · " + strings.Join(parts, ", ")
	if n := len(locs) - maxLocationsShown; n > 0 {
		text += fmt.Sprintf(" (+%d more)", n)
	}
	return text
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
			add("", fmt.Sprintf("⚙ %s [%s]", e.Title, e.ToolStatus)+locationsText(e.Locations))
		case EntryPlan:
			add("", "plan:")
			if len(e.PlanItems) > 0 {
				for _, it := range e.PlanItems {
					add(planMark(it.Status), it.Content+planPriority(it.Priority))
				}
				break
			}
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
