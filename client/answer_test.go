package client

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestParseAnswer: each kind of line the server writes is read as what it
// is, and a line that is none of them is left out.
func TestParseAnswer(t *testing.T) {
	a, ok := parseAnswer([]byte(`{"jsonrpc":"2.0","id":7,"result":{"x":1}}`))
	if !ok || a.ID == nil || *a.ID != 7 || string(a.Result) != `{"x":1}` || a.Error != nil || a.Method != "" {
		t.Fatalf("an answer read as %+v, %v", a, ok)
	}
	a, ok = parseAnswer([]byte(`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"bad","data":{"bad":["x"]}}}`))
	if !ok || *a.ID != 8 || a.Error == nil || a.Error.Code != -32602 || string(a.Error.Data) != `{"bad":["x"]}` {
		t.Fatalf("an error answer read as %+v, %v", a, ok)
	}
	a, ok = parseAnswer([]byte(`{"jsonrpc":"2.0","method":"_acpmux/screen","params":{"id":"c"}}`))
	if !ok || a.ID != nil || a.Method != "_acpmux/screen" || string(a.Params) != `{"id":"c"}` {
		t.Fatalf("a notification read as %+v, %v", a, ok)
	}
	a, ok = parseAnswer([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`))
	if !ok || a.ID != nil || a.Error == nil || a.Error.Code != -32700 {
		t.Fatalf("an error with a null id read as %+v, %v", a, ok)
	}
	for _, bad := range []string{`not json`, `[1]`, `{"id":"seven","result":1}`, `{"id":1.5,"result":1}`, `{"method":3}`, `{"id":1,"error":"x"}`} {
		if a, ok := parseAnswer([]byte(bad)); ok {
			t.Errorf("%s read as %+v", bad, a)
		}
	}
}

// FuzzParseAnswer: no line panics the reader, and an answer it reads keeps
// its result though the line's buffer is reused.
func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":{"x":1}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"_acpmux/changed","params":{"states":{}}}`))
	f.Add([]byte(`{"id":null,"error":{"code":1,"message":"m"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		a, ok := parseAnswer(line)
		if !ok {
			return
		}
		result := string(a.Result)
		for i := range line {
			line[i] = 'x'
		}
		if string(a.Result) != result {
			t.Fatalf("the result changed with the line's buffer: %q, was %q", a.Result, result)
		}
		if a.Result != nil && !json.Valid(a.Result) {
			t.Fatalf("result %q is not JSON", a.Result)
		}
	})
}

// TestRequestLine: a call's line is the JSON-RPC request, whether its
// params write themselves (a key) or go through encoding/json.
func TestRequestLine(t *testing.T) {
	for _, params := range []any{proto.WriteParams{ID: "c1", Data: []byte("k\r")}, proto.ChatParams{ID: "c1"}} {
		line, err := requestLine(7, proto.MethodWrite, params)
		if err != nil || line[len(line)-1] != '\n' {
			t.Fatalf("%q, %v", line, err)
		}
		var got struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      int64           `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(params)
		var g, w any
		json.Unmarshal(got.Params, &g)
		json.Unmarshal(want, &w)
		if got.JSONRPC != "2.0" || got.ID != 7 || got.Method != proto.MethodWrite || !reflect.DeepEqual(g, w) {
			t.Fatalf("line %s", line)
		}
	}
}
