package web

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fuzzToken is the token FuzzCookie's values are checked against; the
// seed corpus holds a session value made with it.
var fuzzToken = strings.Repeat("0123456789abcdef", 4)

// FuzzCookie checks the session checker never panics and accepts only
// values it makes: a value accepted is exactly the one sessionFor spells
// for its nonce, and no other token accepts it.
func FuzzCookie(f *testing.F) {
	f.Add(sessionFor(fuzzToken, []byte("sixteen byte non")))
	f.Add("")
	f.Add(".")
	f.Add("c2l4dGVlbiBieXRlIG5vbg.")
	f.Fuzz(func(t *testing.T, value string) {
		if !validSession(fuzzToken, value) {
			return
		}
		n, _, _ := strings.Cut(value, ".")
		nonce, err := b64.DecodeString(n)
		if err != nil {
			t.Fatalf("accepted %q, whose nonce does not decode: %v", value, err)
		}
		if made := sessionFor(fuzzToken, nonce); made != value {
			t.Fatalf("accepted %q, which is not the value made for its nonce (%q)", value, made)
		}
		if validSession(strings.Repeat("f", 64), value) {
			t.Fatalf("another token accepts %q", value)
		}
	})
}

// TestSessionValues checks the checker against values made by hand.
func TestSessionValues(t *testing.T) {
	tok := fuzzToken
	good := newSession(tok)
	if !validSession(tok, good) {
		t.Fatalf("a value just made is refused")
	}
	if validSession(strings.Repeat("f", 64), good) {
		t.Fatalf("a value is accepted under another token")
	}
	nonce, mac, _ := strings.Cut(good, ".")
	for name, v := range map[string]string{
		"no dot":            nonce + mac,
		"padded":            nonce + "==." + mac,
		"MAC cut short":     nonce + "." + mac[:len(mac)-1],
		"MAC one longer":    good + "A",
		"a second dot":      good + ".",
		"standard base64":   strings.NewReplacer("-", "+", "_", "/").Replace(good) + "+",
		"the token":         tok,
		"nonce of 15 bytes": b64.EncodeToString(make([]byte, 15)) + "." + mac,
		"spaces around":     " " + good + " ",
		"a line break":      good[:30] + "\r\n" + good[30:],
	} {
		if validSession(tok, v) {
			t.Errorf("%s: %q accepted", name, v)
		}
	}
}

// FuzzToLine checks that whatever a client puts in a text frame reaches
// the server as exactly one line: a JSON message compacted and still the
// same JSON, anything else with its line breaks made spaces (for the
// server to answer -32700), never two lines the server would take for two
// messages.
func FuzzToLine(f *testing.F) {
	f.Add([]byte("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"initialize\"\n}"))
	f.Add([]byte("{\"a\":\"b\\nc\"}\r\n{\"second\":1}"))
	f.Add([]byte("not json\nat all"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, frame []byte) {
		line := toLine(frame)
		if len(line) == 0 || line[len(line)-1] != '\n' || bytes.Count(line, []byte("\n")) != 1 || bytes.ContainsRune(line, '\r') {
			t.Fatalf("frame %q became %q: not one line", frame, line)
		}
		msg := line[:len(line)-1]
		if json.Valid(frame) {
			want, errWant := decodeNumbers(frame)
			got, errGot := decodeNumbers(msg)
			if errWant != nil || errGot != nil || !reflect.DeepEqual(want, got) {
				t.Fatalf("JSON frame %q became %q, another message (%v, %v)", frame, msg, errWant, errGot)
			}
		}
	})
}

// decodeNumbers decodes one JSON value with its numbers kept as written
// (a number too large for a float64 is still JSON).
func decodeNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}
