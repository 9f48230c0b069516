package mux

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/sandbox"
)

// TestWhyLineChoosesTheLineThatSaysWhy: of what a run printed last, the
// summary quotes the line that says why it ended: an error line over the
// link, advice or frame a harness prints after it.
func TestWhyLineChoosesTheLineThatSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		screen []string
		want   string
	}{
		{"claude code offline: its error, not its last line, a link", []string{
			" Welcome to Claude Code v2.1.318",
			" ....................................",
			"",
			" Unable to connect to Anthropic services",
			"",
			" Failed to connect to api.anthropic.com: ENOTFOUND",
			"",
			" Please check your internet connection and network settings.",
			"",
			" Note: Claude Code might not be available in your country. Check supported countries at",
			" https://anthropic.com/supported-countries",
			"", "", "",
		}, "Failed to connect to api.anthropic.com: ENOTFOUND"},
		{"a node stack: the error, not its frames", []string{
			"Error: connect ECONNREFUSED 127.0.0.1:443",
			"    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)",
			"    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
		}, "Error: connect ECONNREFUSED 127.0.0.1:443"},
		{"a python traceback: its last line", []string{
			"Traceback (most recent call last):",
			`  File "main.py", line 3, in <module>`,
			"    run()",
			"PermissionError: [Errno 13] Permission denied: '/etc/x'",
		}, "PermissionError: [Errno 13] Permission denied: '/etc/x'"},
		{"an error in a box: the box's edges taken off", []string{
			"╭──────────────────────────────╮",
			"│  Error: invalid API key      │",
			"╰──────────────────────────────╯",
		}, "Error: invalid API key"},
		{"no error word: the last line that is not a link or a rule", []string{
			"goodbye for now",
			"see https://example.com/why",
			"https://example.com/why",
			"────────────────",
		}, "see https://example.com/why"},
		{"nothing but a link: the link", []string{"", "https://example.com/", ""}, "https://example.com/"},
		{"an error long before the last words is not theirs", append([]string{"error: the conversation mentioned one"},
			strings.Split("one two three four five six seven eight nine", " ")...), "nine"},
		{"the sandbox's refusal", []string{sandbox.RefusedPrefix + "prove: a file could be made outside the bound"},
			sandbox.RefusedPrefix + "prove: a file could be made outside the bound"},
		{"escapes, controls and runs of blanks cleaned", []string{"fatal:\x1b[31m  no\tsuch \u202efile\x07  "}, "fatal: no such file"},
		{"an empty screen", []string{"", "  ", ""}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := whyLine(tc.screen); got != tc.want {
				t.Fatalf("whyLine of\n%s\n= %q, want %q", strings.Join(tc.screen, "\n"), got, tc.want)
			}
		})
	}
}

// TestWhyLineIsOneBoundedLine: a line too long for a summary is cut,
// marked, and never holds a newline.
func TestWhyLineIsOneBoundedLine(t *testing.T) {
	got := whyLine([]string{"error: " + strings.Repeat("x", 2*maxWhyRunes)})
	if n := len([]rune(got)); n != maxWhyRunes || !strings.HasSuffix(got, "…") || strings.ContainsAny(got, "\n\r") {
		t.Fatalf("a long line became %d characters: %q", n, got)
	}
}
