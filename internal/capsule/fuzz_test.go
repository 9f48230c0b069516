package capsule

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The parsers of outside files take any line without panicking, and what
// they keep makes a clean, bounded capsule.
func FuzzClaudeLine(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"goal"}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit","input":{"file_path":"/a\u001b[2J"}}]}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"\u009b31m"}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var c Conversation
		c.ParseClaudeLine(line)
		c.ParseClaudeLine(line)
		checkFuzzed(t, c)
	})
}

func FuzzCodexLine(f *testing.F) {
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"user_message","message":"goal"}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Add File: a\n"}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[1,\"x\"]}"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var c Conversation
		c.ParseCodexLine(line)
		checkFuzzed(t, c)
	})
}

func FuzzEachLine(f *testing.F) {
	f.Add([]byte("a\nb\r\n"), false)
	f.Add([]byte("partial\nwhole\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, skip bool) {
		n := 0
		if err := eachLine(strings.NewReader(string(data)), skip, func(l []byte) {
			if len(l) > maxLineBytes {
				t.Fatalf("a line of %d bytes", len(l))
			}
			n++
		}); err != nil {
			t.Fatal(err)
		}
		if n > strings.Count(string(data), "\n")+1 {
			t.Fatalf("%d lines from %d newlines", n, strings.Count(string(data), "\n"))
		}
	})
}

func checkFuzzed(t *testing.T, c Conversation) {
	t.Helper()
	out := Build(Info{Kind: KindHandoff, ParentID: "a", Harness: "b"}, c)
	if len(out) > MaxBytes {
		t.Fatalf("capsule of %d bytes", len(out))
	}
	for _, r := range out {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			t.Fatalf("control character %U in capsule", r)
		}
	}
}

// The redactor takes any text without panicking; what it adds is only its
// marks; and its result redacted again is the same (no mark looks like a
// credential, and no replacement leaves one behind). Seeds are in
// testdata/fuzz/FuzzRedact.
func FuzzRedact(f *testing.F) {
	f.Add("ghp_" + fakeKey(36, 1) + " and API_KEY=" + fakeKey(20, 2))
	f.Add("-----BEGIN PRIVATE KEY-----\n" + fakeKey(64, 3) + "\n-----END PRIVATE KEY-----")
	f.Add("postgres://u:p4ss@h/db Bearer " + fakeKey(30, 4) + " \u202e")
	f.Fuzz(func(t *testing.T, in string) {
		out, counts := Redact(in)
		added := 0
		for k, n := range counts {
			added += n * len(MarkOf(k))
		}
		if len(out) > len(in)+added {
			t.Fatalf("%d bytes in, %d out, with %d bytes of marks (%s)", len(in), len(out), added, counts)
		}
		if CountMarks(out).Total() < counts.Total() {
			t.Fatalf("%s counted, %s marked in %q", counts, CountMarks(out), out)
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 in, invalid out: %q", out)
		}
		if strings.ContainsFunc(out, func(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }) {
			t.Fatalf("a bidirectional control left in %q", out)
		}
		if again, more := Redact(out); again != out {
			t.Fatalf("redacting twice changed more (%s):\nonce  %q\ntwice %q", more, out, again)
		}
	})
}
