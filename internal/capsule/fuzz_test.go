package capsule

import (
	"strings"
	"testing"
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
