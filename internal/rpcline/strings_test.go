package rpcline

import (
	"encoding/json"
	"testing"
)

var stringSeeds = []string{
	"", "plain", "\x1b[1;31mred\x1b[m", `quote " and \ backslash`, "tab\tnew\nline\r", "日本語 😀",
	"\xff\xfe invalid", "\u2028\u2029", "<a & b>", "\x00\x01\x7f",
}

// TestStringsAgreeWithEncodingJSON: AppendString writes what encoding/json
// reads back as the same string (after its U+FFFD for invalid UTF-8), and
// Unquote reads what encoding/json writes.
func TestStringsAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range stringSeeds {
		checkString(t, s)
	}
}

func checkString(t *testing.T, s string) {
	t.Helper()
	enc := AppendString(nil, s)
	var back string
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatalf("AppendString(%q) = %s, not JSON: %v", s, enc, err)
	}
	std, _ := json.Marshal(s)
	var want string
	json.Unmarshal(std, &want)
	if back != want {
		t.Fatalf("AppendString(%q) reads back as %q, want %q", s, back, want)
	}
	if got, ok := Unquote(std); !ok || got != want {
		t.Fatalf("Unquote(%s) = %q, %v; want %q", std, got, ok, want)
	}
	if got, ok := Unquote(enc); !ok || got != want {
		t.Fatalf("Unquote(%s) = %q, %v; want %q", enc, got, ok, want)
	}
}

// FuzzStrings: AppendString and Unquote agree with encoding/json on any
// string, and Unquote agrees with it on any input it takes for a string.
// The corpus is in testdata/fuzz/FuzzStrings.
func FuzzStrings(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Add(`"\ud83d\ude00 \ud800 lone \udc00 \u00e9"`)
	f.Fuzz(func(t *testing.T, s string) {
		checkString(t, s)
		var want string
		err := json.Unmarshal([]byte(s), &want)
		got, ok := Unquote([]byte(s))
		if err == nil && len(s) > 0 && s[0] == '"' && s[len(s)-1] == '"' && (!ok || got != want) {
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json reads %q", s, got, ok, want)
		}
		if ok && err != nil && json.Valid([]byte(s)) {
			t.Fatalf("Unquote(%q) took what encoding/json refused: %v", s, err)
		}
	})
}
