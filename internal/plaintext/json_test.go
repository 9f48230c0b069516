package plaintext

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSON: DEL and C1 controls in JSON text become \u escapes and every
// value decodes the same; text without them is returned as it is.
func TestJSON(t *testing.T) {
	value := []string{"cwd \u009b2J \u009d0;X\u009c del\x7f", "plain é 🙂", "esc \x1b]0;X\a"}
	raw, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(string(raw))
	for _, r := range out {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			t.Fatalf("JSON(%q) = %q keeps control %U", raw, out, r)
		}
	}
	var back []string
	if err := json.Unmarshal([]byte(out), &back); err != nil {
		t.Fatalf("JSON(%q) = %q is not JSON: %v", raw, out, err)
	}
	for i := range value {
		if back[i] != value[i] {
			t.Errorf("value %d: %q, want %q", i, back[i], value[i])
		}
	}
	if plain := `{"a":"é 🙂"}`; JSON(plain) != plain {
		t.Errorf("JSON(%q) = %q", plain, JSON(plain))
	}
}

// TestJSONBytes: JSONBytes escapes as JSON does, and gives bytes with
// nothing to escape back as they are, not copied.
func TestJSONBytes(t *testing.T) {
	raw := []byte(`["cwd \u009b2J del` + "\x7f" + `", "plain é"]`)
	if got, want := string(JSONBytes(raw)), JSON(string(raw)); got != want {
		t.Errorf("JSONBytes(%q) = %q, want %q", raw, got, want)
	}
	plain := []byte(`{"a":"é 🙂"}`)
	if got := JSONBytes(plain); &got[0] != &plain[0] {
		t.Error("JSONBytes copied bytes with nothing to escape")
	}
}

// FuzzHasDelOrC1: the byte scan finds DEL or a C1 control exactly when
// ranging over the runes does, for any bytes (bad UTF-8 too).
func FuzzHasDelOrC1(f *testing.F) {
	for _, s := range []string{"", "plain é 🙂", "\x7f", "\u0085", "\xc2", "a\xc2", "\xe2\xc2\x85", "\xc2\xa0", "\xc3\x85", "\xf0\x9f\xc2\x9b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.ContainsFunc(s, isDelOrC1)
		if got := hasDelOrC1(s); got != want {
			t.Errorf("hasDelOrC1(%q) = %v, ranging the runes says %v", s, got, want)
		}
		if got := hasDelOrC1([]byte(s)); got != want {
			t.Errorf("hasDelOrC1([]byte(%q)) = %v, ranging the runes says %v", s, got, want)
		}
	})
}
