package agent

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// envelopeLines are lines of every shape the guard meets, and of shapes
// where reading straight and json.Unmarshal could part.
var envelopeLines = []string{
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
	`{"jsonrpc":"2.0","id":4503599627370497,"result":{"stopReason":"end_turn"}}`,
	`{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"nope","data":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{}}`,
	`{"jsonrpc":"2.0","id":null,"method":"n","params":null}`,
	`{"jsonrpc":"2.0","id":1,"result":null}`,
	` { "id" : 7 , "method" : "m\u0065" , "result" : [1, 2] } `,
	`{"ID":5,"Method":"x"}`,
	`{"method":"a","METHOD":"b"}`,
	`{"id":1,"id":2,"method":"x","method":"y"}`,
	`{"m\u0065thod":"x"}`,
	`{"method":7}`,
	`{"method":null,"jsonrpc":null}`,
	`{"jsonrpc":2}`,
	`{"id":{"a":1}}`,
	`{"params":"text","other":{"deep":[1,{"id":9}]}}`,
	`{"error":null}`,
	`{"error":5}`,
	`{"method":"\ud800 lone"}`,
	`[]`,
	`"str"`,
	`null`,
	`{}`,
}

// sameEnvelope reports whether the two read the same.
func sameEnvelope(a, b envelope) bool {
	if (a.ID == nil) != (b.ID == nil) || a.ID != nil && !bytes.Equal(*a.ID, *b.ID) {
		return false
	}
	return a.JSONRPC == b.JSONRPC && a.Method == b.Method && bytes.Equal(a.Params, b.Params) &&
		bytes.Equal(a.Result, b.Result) && reflect.DeepEqual(a.Error, b.Error)
}

func checkEnvelope(t *testing.T, line []byte) {
	t.Helper()
	if !json.Valid(line) {
		return
	}
	var want envelope
	wantOK := json.Unmarshal(line, &want) == nil
	got, ok := readEnvelope(line)
	if ok != wantOK || ok && !sameEnvelope(got, want) {
		t.Fatalf("%s: read %+v (%v), json.Unmarshal %+v (%v)", line, got, ok, want, wantOK)
	}
}

// TestReadEnvelopeAgreesWithEncodingJSON: the guard reads every line as
// json.Unmarshal into an envelope would, straight or not.
func TestReadEnvelopeAgreesWithEncodingJSON(t *testing.T) {
	for _, line := range envelopeLines {
		checkEnvelope(t, []byte(line))
	}
}

func FuzzReadEnvelope(f *testing.F) {
	for _, line := range envelopeLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkEnvelope(t, line) })
}

// BenchmarkReadEnvelope: an agent's message chunk, the line most read,
// read straight and as json.Unmarshal reads it.
func BenchmarkReadEnvelope(b *testing.B) {
	line := []byte(envelopeLines[0])
	b.Run("straight", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := readEnvelope(line); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var msg envelope
			if json.Unmarshal(line, &msg) != nil {
				b.Fatal("not read")
			}
		}
	})
}
