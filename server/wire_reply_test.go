package server

import (
	"bytes"
	"encoding/json"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// encoded is the line the encoder writes for an answer.
func encoded(t *testing.T, id string, result any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(response{JSONRPC: "2.0", ID: json.RawMessage(id), Result: result}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var answerIDs = []string{"1", "42", "9007199254740993", `"abc"`, "-1", "1.5", "null"}

// TestEmptyAnswerIsWhatTheEncoderWrites: the answer of a call that
// answers nothing (a key's) is written without the encoder, and is the
// line the encoder writes, for every id; an id that is not a plain
// integer goes through the encoder.
func TestEmptyAnswerIsWhatTheEncoderWrites(t *testing.T) {
	for _, id := range answerIDs {
		got, err := encodeResponse(json.RawMessage(id), struct{}{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := encoded(t, id, struct{}{}); !bytes.Equal(got, want) {
			t.Errorf("id %s: answered %q, the encoder writes %q", id, got, want)
		}
	}
}

// TestPromptAnswerIsWhatTheEncoderWrites: a door's prompt's answer is
// written without the encoder when it is a plain stop reason, and is the
// encoder's line for every id and reason; a reason the encoder escapes,
// and an answer with more than a reason, go through it.
func TestPromptAnswerIsWhatTheEncoderWrites(t *testing.T) {
	msg := "m1"
	reasons := []sdk.PromptResponse{
		{StopReason: sdk.StopReasonEndTurn},
		{StopReason: sdk.StopReasonCancelled},
		{StopReason: ""},
		{StopReason: `a "quoted" \ reason`},
		{StopReason: "tab\there, line\nbreak"},
		{StopReason: "<html> & é \u2028"},
		{StopReason: "end_turn", UserMessageId: &msg},
		{StopReason: "end_turn", Meta: map[string]any{"k": 1}},
		{StopReason: "end_turn", Usage: &sdk.Usage{TotalTokens: 3}},
	}
	for _, id := range answerIDs {
		for _, r := range reasons {
			got, err := encodeResponse(json.RawMessage(id), r, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := encoded(t, id, r); !bytes.Equal(got, want) {
				t.Errorf("id %s, %+v: answered %q, the encoder writes %q", id, r, got, want)
			}
		}
	}
}
