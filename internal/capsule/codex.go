package capsule

import (
	"encoding/json"
	"strings"
)

// codexRecord is one line of a Codex rollout file
// (sessions/YYYY/MM/DD/rollout-<time>-<session>.jsonl): a type and its
// payload.
type codexRecord struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// codexPayload is what a capsule reads of a payload: an event_msg's
// user_message or agent_message, a response_item's function or custom tool
// call (whose arguments or input may hold an apply_patch).
type codexPayload struct {
	Type      string          `json:"type"`
	Message   string          `json:"message"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Action    json.RawMessage `json:"action"`
}

// ParseCodexLine adds one line of a Codex rollout file to c. Messages come
// from the event_msg records (the response_item messages repeat them, with
// Codex's own context added); tool calls from response_item records.
func (c *Conversation) ParseCodexLine(line []byte) {
	var r codexRecord
	if json.Unmarshal(line, &r) != nil {
		return
	}
	var p codexPayload
	if json.Unmarshal(r.Payload, &p) != nil {
		return
	}
	switch {
	case r.Type == "event_msg" && p.Type == "user_message":
		c.add(RoleUser, p.Message)
	case r.Type == "event_msg" && p.Type == "agent_message":
		c.add(RoleAgent, p.Message)
	case r.Type == "response_item" && (p.Type == "function_call" || p.Type == "custom_tool_call"):
		body := p.Arguments + p.Input
		c.patchFiles(body)
		desc := p.Name
		var args struct {
			Command any    `json:"command"`
			Cmd     string `json:"cmd"`
		}
		if json.Unmarshal([]byte(p.Arguments), &args) == nil {
			switch v := args.Command.(type) {
			case string:
				desc += ": " + v
			case []any:
				var parts []string
				for _, a := range v {
					if s, ok := a.(string); ok {
						parts = append(parts, s)
					}
				}
				desc += ": " + strings.Join(parts, " ")
			}
			if args.Cmd != "" {
				desc += ": " + args.Cmd
			}
		}
		c.add(RoleTool, firstLine(desc))
	case r.Type == "response_item" && p.Type == "local_shell_call":
		c.patchFiles(string(p.Action))
		c.add(RoleTool, "shell")
	}
}

// patchFiles records the files an apply_patch body names.
func (c *Conversation) patchFiles(body string) {
	if !strings.Contains(body, "*** ") {
		return
	}
	// The body may be JSON-escaped inside the arguments string.
	body = strings.ReplaceAll(body, `\n`, "\n")
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if rest, ok := strings.CutPrefix(l, p); ok {
				c.addFile(strings.Trim(rest, `"\`))
			}
		}
	}
}

// FromCodexLog reads a Codex rollout file, bounded (see readLog).
func FromCodexLog(path string) Conversation {
	c := Conversation{Source: SourceCodex}
	gap, err := readLog(path, c.ParseCodexLine)
	c.Gap = gap
	if err != nil {
		c.Note = "Codex's session log could not be read whole: " + err.Error()
	}
	return c
}
