package proto

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
)

// screenFrom builds an update from fuzz input: rows split from text.
func screenFrom(id string, col, row int, full bool, text string) ScreenUpdate {
	u := ScreenUpdate{ID: id, Cursor: [2]int{col, row}}
	if full {
		u.Screen.Full = &text
		return u
	}
	u.Screen.Rows = map[int]string{}
	for i, line := range strings.Split(text, "\n") {
		u.Screen.Rows[i*7%50] = line
	}
	return u
}

// stdNotification is the notification line encoding/json writes, HTML
// left unescaped as the server writes it.
func stdNotification(method string, params any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
	return buf.Bytes(), err
}

// checkScreenLine: the line EncodeScreenUpdate writes is the JSON that
// encoding/json writes for the notification (as the server's generic
// encoder does), and DecodeScreenUpdate reads back from it
// what encoding/json does.
func checkScreenLine(t *testing.T, u ScreenUpdate) {
	t.Helper()
	line := EncodeScreenUpdate(u)
	std, err := stdNotification(NotifyScreen, u)
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, line)
	}
	json.Unmarshal(std, &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("wrote %s\nencoding/json writes %s", line, std)
	}
	m, _ := rpcline.Split(line)
	back, err := DecodeScreenUpdate(m.Params)
	var viaJSON ScreenUpdate
	json.Unmarshal(m.Params, &viaJSON)
	if err != nil || !reflect.DeepEqual(back, viaJSON) {
		t.Fatalf("read back %+v, %v; encoding/json reads %+v", back, err, viaJSON)
	}
	if _, fast := decodeScreenFast(m.Params); !fast {
		t.Fatalf("the line written was not read the fast way: %s", line)
	}
}

func TestScreenUpdateLine(t *testing.T) {
	checkScreenLine(t, screenFrom("ab12", 3, 44, false, "\x1b[1;31mred\x1b[m\nplain\n日本"))
	checkScreenLine(t, screenFrom("ab12", 0, 0, true, "whole\nscreen \"quoted\" \\"))
	checkScreenLine(t, ScreenUpdate{ID: "x"})
	full := "both"
	checkScreenLine(t, ScreenUpdate{ID: "y", Screen: ScreenPatch{Full: &full, Rows: map[int]string{2: "r"}}})
}

// FuzzScreenUpdate: any update goes out as encoding/json would write it and
// comes back as it would read it; and on any valid JSON params, what the
// fast reader accepts is what encoding/json reads. The corpus is in
// testdata/fuzz/FuzzScreenUpdate.
func FuzzScreenUpdate(f *testing.F) {
	f.Add("ab12", 3, 44, false, "\x1b[1;31mred\x1b[m\nplain", []byte(`{"id":"a","cursor":[1,2],"screen":{"rows":{"3":"x"}}}`))
	f.Add("\xff", -1, 1<<20, true, "\xfe\u2028", []byte(`{"id":"a","ID":"b","cursor":[1,2],"screen":{}}`))
	f.Add("", 0, 0, false, "", []byte(`{"id":"a","cursor":[1, 2],"screen":{"rows":{"03":"x","3":"y"}}}`))
	f.Fuzz(func(t *testing.T, id string, col, row int, full bool, text string, params []byte) {
		checkScreenLine(t, screenFrom(id, col, row, full, text))
		if !json.Valid(params) {
			decodeScreenFast(params) // must not panic; the reader never passes such
			return
		}
		fast, ok := decodeScreenFast(params)
		if !ok {
			DecodeScreenUpdate(params) // must not panic
			return
		}
		var want ScreenUpdate
		if err := json.Unmarshal(params, &want); err != nil || !reflect.DeepEqual(fast, want) {
			t.Fatalf("fast read %+v of %s; encoding/json reads %+v, %v", fast, params, want, err)
		}
	})
}

// FuzzWriteParams: WriteParams.AppendJSON writes what encoding/json writes.
// The corpus is in testdata/fuzz/FuzzWriteParams.
func FuzzWriteParams(f *testing.F) {
	f.Add("ab12", []byte("k"), false)
	f.Add("\xff\"", []byte{}, true)
	f.Fuzz(func(t *testing.T, id string, data []byte, nilData bool) {
		if nilData {
			data = nil
		}
		p := WriteParams{ID: id, Data: data}
		got := p.AppendJSON(nil)
		want, _ := json.Marshal(p)
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) {
			t.Fatalf("wrote %s, encoding/json writes %s", got, want)
		}
	})
}
