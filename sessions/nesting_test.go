package sessions

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestCheckNesting(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	many := strings.Repeat("[", 40)
	// Valid TOML that the guard must let through: brackets, quotes, dots and
	// comment marks inside strings, comments and values, and nesting right
	// at the limit.
	accepted := []struct{ name, text string }{
		{"arrays at the limit", "a = " + deep("[", "]", 32) + "\n"},
		{"inline tables at the limit", "a = " + deep("{b = ", "}", 32) + "\n"},
		{"dotted key at the limit", strings.Repeat("k.", 32) + "k = 1\n"},
		{"table name at the limit", "[" + strings.Repeat("t.", 31) + "t]\nx = 1\n"},
		{"array of tables", "[[a.b]]\nx = 1\n[[a.b]]\nx = 2\n"},
		{"floats and times deep down", "a = " + strings.Repeat("[", 32) + "1.5, 2.5e3, 2026-01-02T03:04:05.123Z, 03:04:05.5" + strings.Repeat("]", 32) + "\n"},
		{"dotted key into arrays", strings.Repeat("k.", 15) + "k = " + deep("[", "]", 16) + "\n"},
		{"basic string", "a = \"" + many + "{{{{.....\"\n"},
		{"literal string", "a = '" + many + "\\'\n"},
		{"escaped quote", "a = \"\\\"" + many + "\\\"\"\nb = \"\\\\\"\nc = [1]\n"},
		{"multi-line basic", "a = \"\"\"\n" + many + "\n\"\" \\\"\"\" " + many + "\n\"\"\"\n"},
		{"multi-line basic, quotes by the end", "a = \"\"\"" + many + "\"\"\"\"\"\nb = \"\"\"\"\"" + many + "\"\"\"\n"},
		{"multi-line line-ending backslash", "a = \"\"\"\\\n   " + many + " \\\n\"\"\"\n"},
		{"multi-line literal", "a = '''\n" + many + "\\'''\nb = '''" + many + "'''''\n"},
		{"empty strings", "a = \"\"\nb = ''\nc = [\"\", '', \"\"\"\"\"\", '''''']\n"},
		{"comments", "# " + many + "\na = [ # " + many + "\n  1, # \"\n] # '\n"},
		{"quoted keys with dots", "\"" + strings.Repeat("a.", 40) + "\" = 1\n['" + strings.Repeat("b.", 40) + "'.c]\nx = 1\n"},
		{"strings as keys and values in tables", "[t]\n\"k[[[\" = {\"x.y.z\" = '[[[', 'u{{' = \"\"\"]]]\"\"\"}\n"},
		{"dotted keys and inline tables at the limit", strings.Repeat("k.", 10) + "k = {" + strings.Repeat("k.", 10) + "k = {" + strings.Repeat("k.", 10) + "k = 1}}\n"},
		{"inline table over lines", "a = {\n b.c = 1,\n d = [\n  1.5,\n ],\n}\n"},
		{"CRLF", "# c\r\na = [\r\n 1.5,\r\n]\r\nb.c = 1\r\n"},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			var v map[string]any
			if _, err := toml.Decode(tt.text, &v); err != nil {
				t.Fatalf("not valid TOML, the test is wrong: %v\n%s", err, tt.text)
			}
			if err := checkNesting([]byte(tt.text)); err != nil {
				t.Errorf("refused: %v\n%s", err, tt.text)
			}
		})
	}
	refused := []struct{ name, text string }{
		{"arrays", "a = " + deep("[", "]", 33) + "\n"},
		{"arrays, unclosed", "a = " + strings.Repeat("[", 2<<20)},
		{"inline tables", "a = " + deep("{b = ", "}", 33) + "\n"},
		{"dotted key", strings.Repeat("k.", 33) + "k = 1\n"},
		{"table name", "[" + strings.Repeat("t.", 32) + "t]\n"},
		{"array of tables", "[[" + strings.Repeat("t.", 31) + "t]]\n"},
		{"dotted keys and inline tables", strings.Repeat("k.", 11) + "k = {" + strings.Repeat("k.", 10) + "k = {" + strings.Repeat("k.", 10) + "k = 1}}\n"},
		{"after a string with brackets", "a = \"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\"\nb = " + deep("[", "]", 33) + "\n"},
		{"after a comment with brackets", "# ]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\nb = " + deep("[", "]", 33) + "\n"},
		{"after a multi-line string", "a = \"\"\"\n\"\"\"\"\"\nb = " + deep("[", "]", 33) + "\n"},
		{"mixed", "a = [" + deep("{b = [", "]}", 16) + "]\n"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := checkNesting([]byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), "nested deeper than 32 levels") {
				t.Errorf("checkNesting = %v", err)
			}
		})
	}
}

// The chat file that overflowed the parser's stack (a fatal error: the
// process died) is refused with the reason, and the process lives on.
func TestParseMetaRefusesDeepNesting(t *testing.T) {
	for _, text := range []string{
		validChat + "a = " + strings.Repeat("[", MaxChatFileBytes-len(validChat)-4),
		validChat + "a = " + strings.Repeat("{b = ", MaxChatFileBytes/5-len(validChat)),
		validChat + strings.Repeat("k.", MaxChatFileBytes/2-len(validChat)) + "k = 1\n",
	} {
		m, err := ParseMeta([]byte(text))
		if err == nil || m != nil || !strings.Contains(err.Error(), "line 6: nested deeper than 32 levels") {
			t.Errorf("ParseMeta = %v, %v", m, err)
		}
	}
	text := validChat + "a = " + strings.Repeat("[", 2<<20)
	if _, err := ParseMeta([]byte(text)); err == nil || err.Error() != "chat file is 2.0 MiB, over the 1 MiB limit" {
		t.Errorf("2 MB: %v", err)
	}
}
