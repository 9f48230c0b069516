package agent

import (
	"io"
	"strings"
	"testing"
)

// TestWireGuardOverLongLines: with a small limit, a request over it is
// answered and dropped and the next line passes; a notification over it, a
// line whose id is nested, and a line that never ends (past eight times
// the limit) each end the stream as before.
func TestWireGuardOverLongLines(t *testing.T) {
	const max = 1024
	pad := strings.Repeat("x", 3*max)
	request := `{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"content":"` + pad + `"},"id":42}`
	next := `{"jsonrpc":"2.0","id":1,"result":{}}`
	cases := []struct {
		name, stream string
		answered     int
		passed       []string
		bad          string
	}{
		{"a request", request + "\n" + next + "\n", 1, []string{next}, ""},
		{"a notification", `{"jsonrpc":"2.0","method":"session/update","params":{"t":"` + pad + `"}}` + "\n" + next + "\n", 0, nil, "agent sent a line over 1 KiB"},
		{"a nested id", `{"jsonrpc":"2.0","method":"x","params":{"id":3,"t":"` + pad + `"}}` + "\n", 0, nil, "agent sent a line over 1 KiB"},
		{"a line that never ends", `{"id":7,"method":"m","params":"` + strings.Repeat("y", 200*max) + "\n", 0, nil, "agent sent a line over 1 KiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var bad string
			g := newWireGuard(strings.NewReader(c.stream), max, func(r string) { bad = r })
			answers := make(chan []byte, 4)
			g.answer = func(msg []byte, _ string) { answers <- msg }
			g.fileCap = 512
			out, err := io.ReadAll(g)
			if err != nil {
				t.Fatal(err)
			}
			var passed []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if l != "" {
					passed = append(passed, l)
				}
			}
			if strings.Join(passed, "|") != strings.Join(c.passed, "|") || bad != c.bad {
				t.Errorf("passed %q and bad %q, want %q and %q", passed, bad, c.passed, c.bad)
			}
			if n := int(g.refused.Load()); n != c.answered {
				t.Fatalf("answered %d requests, want %d", n, c.answered)
			}
			if c.answered > 0 {
				msg := <-answers
				want := `{"jsonrpc":"2.0","id":42,"error":{"code":-32602,"message":"Invalid params","data":{"error":"fs/write_text_file: the request is 3.1 KiB, over the 1 KiB limit of one message from an agent; fs/write_text_file writes at most 512 bytes (acp.max_file_bytes) and the request must fit in one message"}}}` + "\n"
				if string(msg) != want {
					t.Errorf("answer\n%s\nwant\n%s", msg, want)
				}
			}
		})
	}
}
