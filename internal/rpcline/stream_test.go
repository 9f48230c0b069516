package rpcline

import (
	"strings"
	"testing"
)

// TestStreamFindsTheRequest: the id and method of a message are found
// wherever they stand, fed in pieces of any size, past a value far larger
// than what is kept.
func TestStreamFindsTheRequest(t *testing.T) {
	big := `"` + strings.Repeat(`x\"{[`, 50_000) + `"`
	tests := []struct {
		name, text, id, method string
		ok                     bool
	}{
		{"id first", `{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{"content":` + big + `}}`, "7", "fs/write_text_file", true},
		{"id last", `{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"content":` + big + `,"id":9},"id":"r-1"}`, `"r-1"`, "fs/write_text_file", true},
		{"spaces", ` { "params" : [ ` + big + ` ] , "id" : 12 , "method" : "x/y" } `, "12", "x/y", true},
		{"escaped key", `{"\u0069d":3,"method":"m","params":` + big + `}`, "3", "m", true},
		{"negative id", `{"id":-4,"method":"m"}`, "-4", "m", true},
		{"nested id only", `{"method":"session/update","params":{"id":5,"text":` + big + `}}`, "", "", false},
		{"a notification", `{"jsonrpc":"2.0","method":"session/update","params":{"text":` + big + `}}`, "", "", false},
		{"null id", `{"id":null,"method":"m","params":` + big + `}`, "", "", false},
		{"a response", `{"jsonrpc":"2.0","id":4,"result":{"text":` + big + `}}`, "", "", false},
		{"an object id", `{"id":{"a":1},"method":"m"}`, "", "", false},
		{"method not a string", `{"id":1,"method":5}`, "", "", false},
		{"id too long to keep", `{"id":"` + strings.Repeat("9", 2000) + `","method":"m"}`, "", "", false},
		{"not an object", `[{"id":1,"method":"m"}]`, "", "", false},
		{"not JSON", `this is not JSON {"id":1,"method":"m"}`, "", "", false},
		{"cut short", `{"id":1,"method":"m","params":{"content":"xxx`, "1", "m", true},
	}
	for _, tt := range tests {
		for _, piece := range []int{1, 7, 4096, len(tt.text)} {
			var s Stream
			for i := 0; i < len(tt.text); i += piece {
				s.Write([]byte(tt.text[i:min(i+piece, len(tt.text))]))
			}
			id, method, ok := s.Request()
			if ok != tt.ok || string(id) != tt.id || method != tt.method {
				t.Errorf("%s, in pieces of %d: Request() = %s, %q, %v; want %s, %q, %v", tt.name, piece, id, method, ok, tt.id, tt.method, tt.ok)
			}
			if len(s.ID) > MaxStreamMember || len(s.Method) > MaxStreamMember {
				t.Errorf("%s: kept %d and %d bytes", tt.name, len(s.ID), len(s.Method))
			}
		}
	}
}

// TestStreamEnds: the top-level object's end is seen, and nothing after it
// changes what was found.
func TestStreamEnds(t *testing.T) {
	var s Stream
	s.Write([]byte(`{"id":1,"method":"a","params":{"s":"}"}} {"id":2,"method":"b"}`))
	if !s.Ended {
		t.Fatal("the end of the object was not seen")
	}
	if id, method, ok := s.Request(); !ok || string(id) != "1" || method != "a" {
		t.Fatalf("Request() = %s, %q, %v", id, method, ok)
	}
}

func FuzzStream(f *testing.F) {
	for _, s := range []string{`{"id":1,"method":"m"}`, `{"a":[{"b":"\\\""}],"id":"x"`, `{"\u0069d`, `{`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s Stream
		s.Write([]byte(text))
		s.Request()
		if len(s.ID) > MaxStreamMember || len(s.Method) > MaxStreamMember {
			t.Fatalf("kept %d and %d bytes", len(s.ID), len(s.Method))
		}
	})
}
