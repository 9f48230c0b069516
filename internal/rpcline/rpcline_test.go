package rpcline

import (
	"bytes"
	"encoding/json"
	"testing"
)

// reference splits obj the slow way, as a map. JSON null decodes into a
// map as nothing, without an error, but is no object.
func reference(obj []byte) (Members, bool) {
	var all map[string]json.RawMessage
	if json.Unmarshal(obj, &all) != nil || all == nil {
		return Members{}, false
	}
	get := func(k string) []byte {
		if v, ok := all[k]; ok {
			return bytes.TrimSpace(v)
		}
		return nil
	}
	return Members{get("jsonrpc"), get("id"), get("method"), get("params"), get("result"), get("error")}, true
}

func same(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func check(t *testing.T, line []byte) {
	t.Helper()
	if !json.Valid(line) {
		Split(line) // must not panic
		return
	}
	got, ok := Split(line)
	want, wantOK := reference(line)
	if ok != wantOK {
		t.Fatalf("Split(%q) ok = %v, want %v", line, ok, wantOK)
	}
	if !ok {
		return
	}
	pairs := [][2][]byte{{got.JSONRPC, want.JSONRPC}, {got.ID, want.ID}, {got.Method, want.Method},
		{got.Params, want.Params}, {got.Result, want.Result}, {got.Error, want.Error}}
	for i, p := range pairs {
		if !same(p[0], p[1]) {
			t.Fatalf("Split(%q) member %d = %q, want %q", line, i, p[0], p[1])
		}
	}
	if s, ok := Unquote(got.Method); ok {
		var w string
		if json.Unmarshal(got.Method, &w) != nil || w != s {
			t.Fatalf("Unquote(%q) = %q, encoding/json says %q", got.Method, s, w)
		}
	}
}

var seeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"_acpmux/write","params":{"id":"ab","data":"YQ=="}}`,
	`{"jsonrpc":"2.0","method":"_acpmux/screen","params":{"id":"x","cursor":[1,2],"screen":{"rows":{"3":"\u001b[1mhi\"}\\"}}}}`,
	` { "id" : null , "result" : [1, {"a": "}"}] , "error": {"code": -32600} } `,
	`{"\u0069d": 7, "method": "a\nb", "method": "last", "params": []}`,
	`{"id": 1e3, "result": true, "x": {"nested": [[[]]]}, "jsonrpc": "2.0"}`,
	`{}`, `[]`, `"str"`, `12`, `{"id":"\"quoted\""}`, `{"a":1`,
}

func TestSplitAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		check(t, []byte(s))
	}
}

// FuzzSplit: on any valid JSON, Split finds the members encoding/json
// finds; on anything else, it does not panic. The corpus is in
// testdata/fuzz/FuzzSplit.
func FuzzSplit(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { check(t, line) })
}
