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

// checkElements: on valid JSON, Elements finds the elements encoding/json
// finds, raw; on anything else, it does not panic.
func checkElements(t *testing.T, arr []byte) {
	t.Helper()
	var got [][]byte
	ok := Elements(arr, func(v []byte) bool { got = append(got, v); return true })
	if !json.Valid(arr) {
		return
	}
	var want []json.RawMessage
	wantOK := json.Unmarshal(arr, &want) == nil && bytes.TrimSpace(arr)[0] == '['
	if ok != wantOK {
		t.Fatalf("%q: an array %v, encoding/json says %v", arr, ok, wantOK)
	}
	if !ok {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d elements, want %d", arr, len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], bytes.TrimSpace(want[i])) {
			t.Fatalf("%q: element %d is %q, want %q", arr, i, got[i], want[i])
		}
	}
}

var arraySeeds = []string{
	`[]`, ` [ ] `, `[1]`, `[ 1 , "a,b" , {"k":[2,3]} , [[]] , null , true ]`,
	`[{"type":"text","text":"hi"},{"type":"text","text":"a\"]b"}]`, `{}`, `"[1]"`, `null`, `[1,`,
}

func TestElementsAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range arraySeeds {
		checkElements(t, []byte(s))
	}
}

// FuzzElements: Elements as encoding/json reads an array.
func FuzzElements(f *testing.F) {
	for _, s := range arraySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, arr []byte) { checkElements(t, arr) })
}
