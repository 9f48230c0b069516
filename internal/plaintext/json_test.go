package plaintext

import (
	"encoding/json"
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
