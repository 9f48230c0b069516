package server

import (
	"bytes"
	"encoding/json"
	"reflect"
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

// sameAnswer fails unless got is one line that says what the encoder's
// line for id and r says.
func sameAnswer(t *testing.T, id string, r sdk.PromptResponse, got []byte) {
	t.Helper()
	want := encoded(t, id, r)
	if !bytes.HasSuffix(got, []byte("\n")) || bytes.Count(got, []byte("\n")) != 1 {
		t.Fatalf("id %s, %+v: not one line: %q", id, r, got)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("id %s, %+v: answered %q: %v", id, r, got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("id %s, %+v: answered %q, the encoder writes %q", id, r, got, want)
	}
}

// TestPromptAnswerSaysWhatTheEncoderWrites: a door's prompt's answer is
// written without the encoder when it has a stop reason alone, and says
// what the encoder's line says for every id and reason (invalid UTF-8
// read back as U+FFFD by both); an answer with more than a reason goes
// through the encoder.
func TestPromptAnswerSaysWhatTheEncoderWrites(t *testing.T) {
	msg := "m1"
	reasons := []sdk.PromptResponse{
		{StopReason: sdk.StopReasonEndTurn},
		{StopReason: sdk.StopReasonCancelled},
		{StopReason: ""},
		{StopReason: `a "quoted" \ reason`},
		{StopReason: "tab\there, line\nbreak \x01 \xff"},
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
			sameAnswer(t, id, r, got)
		}
	}
}
