package capsule

import (
	"strings"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
)

// FromTranscript reads an ACP chat's transcript: the user's prompts, the
// agent's messages (thoughts are left out), its tool calls with the files
// they name or wrote, and its plans.
func FromTranscript(entries []proto.Entry) Conversation {
	c := Conversation{Source: SourceTranscript}
	for _, e := range entries {
		switch e.Kind {
		case proto.EntryUser:
			c.add(RoleUser, e.Text)
		case proto.EntryAgent:
			// Streamed chunks of one message may arrive as several
			// entries (an update between them): they join.
			if n := len(c.Messages); n > 0 && c.Messages[n-1].Role == RoleAgent {
				c.Messages[n-1].Text += plaintext.Clean(e.Text)
				continue
			}
			c.add(RoleAgent, e.Text)
		case proto.EntryTool:
			title := strings.TrimSpace(plaintext.Line(e.Title))
			if title == "" {
				title = "a tool"
			}
			if e.ToolStatus != "" && e.ToolStatus != "completed" {
				title += " [" + plaintext.Line(e.ToolStatus) + "]"
			}
			c.add(RoleTool, title)
			for _, p := range e.Paths {
				c.addFile(p)
			}
		case proto.EntryPlan:
			if len(e.Plan) > 0 {
				c.add(RoleAgent, "plan: "+strings.Join(e.Plan, "; "))
			}
		}
	}
	return c
}

// FromLines reads a terminal's plain lines (a pty chat's scrollback and
// screen, oldest first): no structure, so they are quoted as they are,
// cleaned, with runs of blank lines squeezed.
func FromLines(lines []string) Conversation {
	c := Conversation{Source: SourceScrollback}
	blank := true
	for _, l := range lines {
		l = strings.TrimRight(plaintext.Line(l), " ")
		if l == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		c.Lines = append(c.Lines, l)
	}
	for len(c.Lines) > 0 && c.Lines[len(c.Lines)-1] == "" {
		c.Lines = c.Lines[:len(c.Lines)-1]
	}
	return c
}
