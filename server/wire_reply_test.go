package server

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestEmptyAnswerIsWhatTheEncoderWrites: the answer of a call that
// answers nothing (a key's) is written without the encoder, and is the
// line the encoder writes, for every id; an id that is not a plain
// integer goes through the encoder.
func TestEmptyAnswerIsWhatTheEncoderWrites(t *testing.T) {
	for _, id := range []string{"1", "42", "9007199254740993", `"abc"`, "-1", "1.5", "null"} {
		got, err := encodeResponse(json.RawMessage(id), struct{}{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(response{JSONRPC: "2.0", ID: json.RawMessage(id), Result: struct{}{}}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("id %s: answered %q, the encoder writes %q", id, got, buf.Bytes())
		}
	}
}
