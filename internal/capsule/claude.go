package capsule

import (
	"encoding/json"
	"strings"
)

// claudeRecord is the part of one line of a Claude Code session log
// (projects/<folder>/<session>.jsonl) that a capsule reads. Records of
// other types (summary, system, file-history-snapshot...) are skipped.
type claudeRecord struct {
	Type        string `json:"type"`
	IsSidechain bool   `json:"isSidechain"`
	IsMeta      bool   `json:"isMeta"`
	Message     struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// claudeBlock is one block of a message's content: text, thinking,
// tool_use (name, input) or tool_result.
type claudeBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ParseClaudeLine adds one line of a Claude Code session log to c. A line
// that does not parse, or is of a type the capsule does not use, is
// skipped.
func (c *Conversation) ParseClaudeLine(line []byte) {
	var r claudeRecord
	if json.Unmarshal(line, &r) != nil || r.IsSidechain || r.IsMeta {
		return
	}
	if r.Type != "user" && r.Type != "assistant" {
		return
	}
	var blocks []claudeBlock
	var text string
	if json.Unmarshal(r.Message.Content, &text) == nil {
		blocks = []claudeBlock{{Type: "text", Text: text}}
	} else if json.Unmarshal(r.Message.Content, &blocks) != nil {
		return
	}
	for _, b := range blocks {
		switch {
		case b.Type == "text" && r.Type == "user":
			if !claudeCommandText(b.Text) {
				c.add(RoleUser, b.Text)
			}
		case b.Type == "text":
			c.add(RoleAgent, b.Text)
		case b.Type == "tool_use" && r.Type == "assistant":
			c.add(RoleTool, c.claudeTool(b.Name, b.Input))
		}
	}
}

// claudeCommandText reports text Claude Code logs as a user message but
// the user did not type as a request: slash-command records, their output,
// and reminders it adds.
func claudeCommandText(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range []string{"<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>", "<system-reminder>", "Caveat: The messages below"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// claudeToolInput is what a capsule reads of a tool call's input: the file
// it works on, or the command it runs, or what it looks for.
type claudeToolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Path         string `json:"path"`
	Command      string `json:"command"`
	Pattern      string `json:"pattern"`
	Description  string `json:"description"`
}

// claudeTool describes a tool call on one line and records the file it
// touched. Only tools that change a file count a file as touched; a read
// or a search does not.
func (c *Conversation) claudeTool(name string, input json.RawMessage) string {
	var in claudeToolInput
	_ = json.Unmarshal(input, &in)
	file := in.FilePath
	if file == "" {
		file = in.NotebookPath
	}
	switch name {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		c.addFile(file)
	}
	desc := name
	switch {
	case file != "":
		desc += " " + file
	case in.Command != "":
		desc += ": " + in.Command
	case in.Pattern != "":
		desc += " " + in.Pattern
		if in.Path != "" {
			desc += " in " + in.Path
		}
	case in.Description != "":
		desc += ": " + in.Description
	}
	return firstLine(desc)
}

// FromClaudeLog reads a Claude Code session log, bounded (see readLog).
func FromClaudeLog(path string) Conversation {
	c := Conversation{Source: SourceClaude}
	gap, err := readLog(path, c.ParseClaudeLine)
	c.Gap = gap
	if err != nil {
		c.Note = "Claude Code's session log could not be read whole: " + err.Error()
	}
	return c
}
