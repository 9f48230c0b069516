package proto

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

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
	// 64 (the mux's bound).
	Paths []string `json:",omitempty"`
	// Plan holds a plan's entries as "[status] text".
	Plan []string
	// MessageID is the agent's id for the message a chunk belongs to
	// (ACP's unstable messageId), "" when the agent sends none.
	MessageID string
	// At is when the entry was added or last changed.
	At time.Time
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
