package capsule

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

func writeLog(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClaudeUsage: the last assistant message's tokens (not a
// subagent's), in a 200k window, or 1M once more are in use; none for a
// log without usage; absurd numbers refused.
func TestClaudeUsage(t *testing.T) {
	asst := func(in, cc, cr, out int64, side bool) string {
		s := `{"type":"assistant","isSidechain":` + map[bool]string{true: "true", false: "false"}[side] +
			`,"message":{"role":"assistant","model":"claude-x","usage":{"input_tokens":` + itoa(in) +
			`,"cache_creation_input_tokens":` + itoa(cc) + `,"cache_read_input_tokens":` + itoa(cr) + `,"output_tokens":` + itoa(out) + `}}}`
		return s
	}
	for _, c := range []struct {
		name  string
		lines []string
		want  *proto.Usage
		err   bool
	}{
		{"last main message", []string{`{"type":"user","message":{"role":"user","content":"hi"}}`, asst(10, 0, 0, 5, false), asst(100, 2000, 30000, 400, false), asst(999999, 0, 0, 0, true), `not json`},
			&proto.Usage{Used: 32500, Size: 200000}, false},
		{"a large window", []string{asst(250000, 0, 0, 10, false)}, &proto.Usage{Used: 250010, Size: 1000000}, false},
		{"no usage", []string{`{"type":"user","message":{"content":"hi"}}`, `{"type":"summary"}`}, nil, false},
		{"absurd", []string{asst(5_000_000_000, 0, 0, 0, false)}, nil, true},
		{"negative", []string{asst(-5, 0, 0, 0, false)}, nil, true},
		{"a sum that would wrap", []string{asst(9_000_000_000_000_000_000, 9_000_000_000_000_000_000, 1, 1, false)}, nil, true},
	} {
		got, err := ClaudeUsage(writeLog(t, c.lines...))
		if (err != nil) != c.err || !got.Equal(c.want) {
			t.Errorf("%s: %+v, %v; want %+v (error %v)", c.name, got, err, c.want, c.err)
		}
	}
}

// TestCodexUsage: the last token_count event's last call and window.
func TestCodexUsage(t *testing.T) {
	tc := func(total, window int64) string {
		return `{"timestamp":"2026-12-06T10:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":999999},"last_token_usage":{"input_tokens":1,"total_tokens":` + itoa(total) + `},"model_context_window":` + itoa(window) + `}}}`
	}
	p := writeLog(t, `{"type":"session_meta","payload":{"id":"x"}}`, tc(1000, 272000), `{"type":"event_msg","payload":{"type":"token_count","info":null}}`, tc(48000, 272000))
	if got, err := CodexUsage(p); err != nil || !got.Equal(&proto.Usage{Used: 48000, Size: 272000}) {
		t.Errorf("CodexUsage: %+v, %v", got, err)
	}
	if got, err := CodexUsage(writeLog(t, tc(300000, 272000))); err == nil || got != nil {
		t.Errorf("used over the window: %+v, %v", got, err)
	}
}

// TestUsageReadsTheTail: a log longer than the window read is read from
// its end (its first, partial line dropped), and a symbolic link is not
// followed.
func TestUsageReadsTheTail(t *testing.T) {
	pad := `{"type":"user","message":{"content":"` + strings.Repeat("x", 4096) + `"}}`
	lines := []string{`{"type":"assistant","message":{"usage":{"input_tokens":1}}}`}
	for range usageTailBytes/len(pad) + 10 {
		lines = append(lines, pad)
	}
	lines = append(lines, `{"type":"assistant","message":{"usage":{"input_tokens":7,"output_tokens":3}}}`)
	p := writeLog(t, lines...)
	if got, err := ClaudeUsage(p); err != nil || !got.Equal(&proto.Usage{Used: 10, Size: 200000}) {
		t.Errorf("a long log: %+v, %v", got, err)
	}
	link := filepath.Join(t.TempDir(), "link.jsonl")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if got, err := ClaudeUsage(link); err == nil || got != nil {
		t.Errorf("a symbolic link was followed: %+v, %v", got, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
