package hookearly

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzParseInput feeds the stdin parser whatever a hook could be given.
// It never panics; what it returns is valid UTF-8 within the bounds, and
// parsing it again as Claude Code would send it gives it back.
func FuzzParseInput(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		kind, msg := ParseInput(in)
		if len(kind) > TypeMax || len(msg) > MessageMax {
			t.Fatalf("over the bounds: %d, %d bytes", len(kind), len(msg))
		}
		if !utf8.ValidString(kind) || !utf8.ValidString(msg) {
			t.Fatalf("not UTF-8: %q, %q", kind, msg)
		}
		again, err := json.Marshal(map[string]string{"hook_event_name": "Notification", "notification_type": kind, "message": msg})
		if err != nil {
			t.Fatal(err)
		}
		if k2, m2 := ParseInput(again); k2 != kind || m2 != msg {
			t.Fatalf("parsed again: %q, %q; want %q, %q", k2, m2, kind, msg)
		}
	})
}

// TestParsers: the pieces of the hook's parsing.
func TestParsers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"type":"agent-turn-complete"}`, "agent-turn-complete"},
		{`{"type":"approval-requested","thread-id":"t"}`, "approval-requested"},
		{`{"type":1}`, ""}, {`[]`, ""}, {``, ""},
	} {
		if got := ParseCodexNotify(tc.in); got != tc.want {
			t.Errorf("ParseCodexNotify(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "abc"}, {"aé", 2, "a"}, {"aé", 3, "aé"}, {"😀x", 3, ""}, {"😀x", 4, "😀"},
	} {
		if got := CutUTF8(tc.in, tc.max); got != tc.want {
			t.Errorf("CutUTF8(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
