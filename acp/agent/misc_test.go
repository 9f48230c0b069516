package agent

import (
	"strings"
	"testing"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"
)

// TestAgentNameIsOneShortCleanLine: the agent names itself, and that name
// is shown in a one-line header: cleaned of controls and clipped.
func TestAgentNameIsOneShortCleanLine(t *testing.T) {
	title := "\x1b]0;pwned\x07Evil\nAgent\x1b[31m"
	got := AgentName(&acp.Implementation{Name: "evil", Title: &title, Version: "1.0"})
	if got != "Evil Agent 1.0" {
		t.Errorf("agentName = %q, want %q", got, "Evil Agent 1.0")
	}
	long := AgentName(&acp.Implementation{Name: strings.Repeat("é", 10000), Version: "1"})
	if len(long) > maxAgentName+len("…") || !utf8.ValidString(long) {
		t.Errorf("a 20 KB name is shown as %d bytes (valid UTF-8: %v)", len(long), utf8.ValidString(long))
	}
}

// TestSanitize: escape sequences and C0, DEL and C1 controls go; newline,
// tab and other text stay.
func TestSanitize(t *testing.T) {
	cases := map[string]string{
		"plain\ttext\nnext":            "plain\ttext\nnext",
		"\x1b[31mred\x1b[0m":           "red",
		"bell\a back\b cr\r del\x7f":   "bell back cr del",
		"c1 \u0085next \u009dosc":      "c1 next osc",
		"bad \xff utf8":                "bad \uFFFD utf8",
		"\x1b]0;title\x07after":        "after",
		"日本語 🙂":                        "日本語 🙂",
		"unterminated \x1b[":           "unterminated ",
		"nul\x00byte":                  "nulbyte",
		"\u009b31mc1 csi\u009b0m done": "31mc1 csi0m done", // C1 CSI: the control goes, its text stays
	}
	for in, want := range cases {
		if got := Sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
