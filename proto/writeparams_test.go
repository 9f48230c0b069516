package proto

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzWriteParamsDecode: whatever DecodeJSON reads, encoding/json reads
// the same params to the same value; and the params AppendJSON writes are
// always read by it.
func FuzzWriteParamsDecode(f *testing.F) {
	for _, s := range []string{
		`{"id":"c1","data":"YQ=="}`, `{"id":"c1","data":""}`, `{"id":"c1","data":null}`,
		`{"id":"c\"1","data":"YQ=="}`, `{"id":"c1","data":"YQ\n=="}`, `{"id":"c1","data":"YQ\\n=="}`,
		`{"id":"c1","data":"!!"}`, `{"id":"\u00e9","data":"YQ=="}`, `{"id":"c1","data":"YQ==","x":1}`,
		"{\"id\":\"\xff\",\"data\":\"YQ==\"}", `{"id":"c1","data":"YQ=="} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var fast WriteParams
		if !fast.DecodeJSON(raw) {
			return
		}
		var slow WriteParams
		if err := json.Unmarshal(raw, &slow); err != nil {
			t.Fatalf("DecodeJSON read %q, which encoding/json refuses: %v", raw, err)
		}
		if fast.ID != slow.ID || !bytes.Equal(fast.Data, slow.Data) || (fast.Data == nil) != (slow.Data == nil) {
			t.Fatalf("%q: DecodeJSON read %q %q, encoding/json %q %q", raw, fast.ID, fast.Data, slow.ID, slow.Data)
		}
	})
}

// TestWriteParamsRoundTrip: a key as the client writes it is read back
// without reflection, whatever its bytes.
func TestWriteParamsRoundTrip(t *testing.T) {
	for _, p := range []WriteParams{{ID: "c00001", Data: []byte("a")}, {ID: "host:c1", Data: []byte("\x1b[A\r\n\x00\xff")}, {ID: "c1", Data: []byte{}}} {
		var got WriteParams
		if !got.DecodeJSON(p.AppendJSON(nil)) {
			t.Fatalf("%s: DecodeJSON did not read what AppendJSON wrote", p.AppendJSON(nil))
		}
		if got.ID != p.ID || !bytes.Equal(got.Data, p.Data) {
			t.Fatalf("round trip of %q %q gave %q %q", p.ID, p.Data, got.ID, got.Data)
		}
	}
}
