package sessions

import (
	"strings"
	"testing"
)

// The one rule for a harness's session id: printable, at most 256 bytes, no
// path separators, no "..", no control or format characters.
func TestAgentSessionIDRule(t *testing.T) {
	tests := []struct {
		name, id string
		problem  string // a part of the reason; "" when the id is kept
	}{
		{"uuid", "0b7a1c2e-3f4d-4e5f-8a9b-0c1d2e3f4a5b", ""},
		{"opencode style", "ses_4f2a9c81b3ffe0Xk2QpL7mN", ""},
		{"with a colon and a dot", "agent:session.42", ""},
		{"a space inside", "session 42", ""},
		{"non-ASCII letters", "sitzung-größe-会话", ""},
		{"256 bytes", strings.Repeat("a", 256), ""},
		{"257 bytes", strings.Repeat("a", 257), "is 257 bytes, at most 256"},
		{"empty", "", "is empty"},
		{"the hostile one", "../../../outside/stolen\x1b]0;X\a", "(U+001B)"},
		{"a slash", "a/b", `has a "/" or "\"`},
		{"a backslash", `a\b`, `has a "/" or "\"`},
		{"dot-dot alone", "..", `has ".."`},
		{"dot-dot inside", "a..b", `has ".."`},
		{"one dot", ".", `is "."`},
		{"NUL", "a\x00b", "(U+0000)"},
		{"newline", "a\nb", "(U+000A)"},
		{"tab", "a\tb", "(U+0009)"},
		{"DEL", "a\x7fb", "(U+007F)"},
		{"C1 CSI", "a\u009b31mb", "(U+009B)"},
		{"bidi override", "abc\u202edcba", "(U+202E)"},
		{"zero width space", "a\u200bb", "(U+200B)"},
		{"invalid UTF-8", "a\xffb", "is not valid UTF-8"},
		{"an option", "--dangerously-skip-permissions", `starts with "-"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AgentSessionIDProblem(tt.id)
			if tt.problem == "" {
				if got != "" {
					t.Fatalf("AgentSessionIDProblem(%q) = %q, want the id kept", tt.id, got)
				}
				if err := CheckAgentSessionID(tt.id); err != nil {
					t.Fatalf("CheckAgentSessionID(%q) = %v", tt.id, err)
				}
				return
			}
			if !strings.Contains(got, tt.problem) {
				t.Fatalf("AgentSessionIDProblem(%q) = %q, want it to say %q", tt.id, got, tt.problem)
			}
			err := CheckAgentSessionID(tt.id)
			if err == nil {
				t.Fatalf("CheckAgentSessionID(%q) accepted it", tt.id)
			}
			if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 }) {
				t.Errorf("the error %q is not plain ASCII: it quotes the id raw", err)
			}
		})
	}
}

// A chat file with a hostile agent_session_id (hand-edited, or written by
// an older version that stored what the agent said) is listed as broken
// with the reason, quoted safely; the file is never rewritten, so nothing in
// it is lost.
func TestChatFileHostileSessionIDIsBroken(t *testing.T) {
	text := validChat + "agent_session_id = \"../../../outside/stolen\\u001b]0;X\\u0007\"\n"
	m, err := ParseMeta([]byte(text))
	if err == nil {
		t.Fatalf("ParseMeta accepted agent_session_id %q", m.AgentSessionID)
	}
	want := `agent_session_id "../../../outside/stolen\x1b]0;X\a" has a character that is not printable (U+001B)`
	if err.Error() != want {
		t.Fatalf("error\n%q\nwant\n%q", err, want)
	}
	if _, err := ParseMeta([]byte(validChat + "agent_session_id = \"0b7a1c2e-3f4d-4e5f-8a9b-0c1d2e3f4a5b\"\n")); err != nil {
		t.Fatalf("a UUID session id: %v", err)
	}

	s := openStore(t)
	path := s.ChatPath("k3x9q2")
	putChat(t, s, "k3x9q2", text)
	entries, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Broken == nil {
		t.Fatalf("List = %+v, want the chat listed as broken", entries)
	}
	if !strings.Contains(entries[0].Broken.Error(), "not printable (U+001B)") {
		t.Errorf("broken reason %q does not say why", entries[0].Broken)
	}
	if _, err := s.Update("k3x9q2", func(m *Meta) error { m.Name = "renamed"; return nil }); err == nil {
		t.Error("Update rewrote a broken chat")
	}
	if got := string(readFile(t, path)); got != text {
		t.Errorf("the chat file changed:\n%q\nwant\n%q", got, text)
	}
	if _, err := s.Create(NewChat{Harness: "claude-acp", AgentSessionID: "../x"}); err == nil || !strings.Contains(err.Error(), `has a "/"`) {
		t.Errorf("Create with session id ../x: %v, want a refusal", err)
	}
}
