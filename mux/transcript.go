package mux

import (
	"fmt"
	"strings"
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
)

// Entry is one item of an ACP chat's transcript.
type Entry struct {
	Kind EntryKind
	// Text is the message, thought or note text.
	Text string
	// ToolCallID, Title and ToolStatus describe a tool call.
	ToolCallID string
	Title      string
	ToolStatus string
	// Plan holds a plan's entries as "status: text".
	Plan []string
}

// maxTranscriptEntries bounds an ACP chat's transcript in memory; older
// entries are dropped (the agent keeps the full history).
const maxTranscriptEntries = 5000

// maxEntryText bounds one entry's text.
const maxEntryText = 1 << 20

// transcript is an ACP chat's conversation as streamed by the agent.
type transcript struct {
	entries []Entry
}

func (t *transcript) add(e Entry) {
	t.entries = append(t.entries, e)
	if len(t.entries) > maxTranscriptEntries {
		t.entries = append(t.entries[:0:0], t.entries[len(t.entries)-maxTranscriptEntries:]...)
	}
}

// appendText adds a streamed chunk to the last entry of that kind when it is
// the last entry, else starts a new one.
func (t *transcript) appendText(kind EntryKind, text string) {
	if n := len(t.entries); n > 0 && t.entries[n-1].Kind == kind {
		e := &t.entries[n-1]
		if len(e.Text)+len(text) <= maxEntryText {
			e.Text += text
		}
		return
	}
	t.add(Entry{Kind: kind, Text: text})
}

// tool records a tool call or an update to one.
func (t *transcript) tool(id, title, status string) {
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := &t.entries[i]
		if e.Kind == EntryTool && e.ToolCallID == id {
			if title != "" {
				e.Title = title
			}
			if status != "" {
				e.ToolStatus = status
			}
			return
		}
	}
	if status == "" {
		status = "pending"
	}
	t.add(Entry{Kind: EntryTool, ToolCallID: id, Title: title, ToolStatus: status})
}

func (t *transcript) plan(items []string) {
	if n := len(t.entries); n > 0 && t.entries[n-1].Kind == EntryPlan {
		t.entries[n-1].Plan = items
		return
	}
	t.add(Entry{Kind: EntryPlan, Plan: items})
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
	}
	return out
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
