package server

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestErrorsSayWhatHappened: a refusal names its real cause, not the
// nearest generic one (issue 21, item 10).
func TestErrorsSayWhatHappened(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	for _, tt := range []struct {
		name, line string
		code       int
		want       string
	}{
		{"deeply nested JSON", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), proto.CodeParseError, "nested too deeply"},
		{"broken JSON", `{"jsonrpc":"2.0",`, proto.CodeParseError, "not JSON (unexpected end of JSON input"},
		{"a cwd with a NUL byte", `{"jsonrpc":"2.0","id":1,"method":"_acpmux/new","params":{"cwd":"/tmp/a\u0000b"}}`, proto.CodeInvalidParams, "contains a NUL byte"},
		{"a relative cwd", `{"jsonrpc":"2.0","id":2,"method":"_acpmux/new","params":{"cwd":"app"}}`, proto.CodeInvalidParams, "not an absolute path"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w.send(tt.line)
			rep := w.read()
			if rep.Error == nil || rep.Error.Code != tt.code || !strings.Contains(rep.Error.Message, tt.want) {
				t.Fatalf("answered %+v, want code %d saying %q", rep.Error, tt.code, tt.want)
			}
		})
	}
	if n := len(r.chatFiles()); n != 0 {
		t.Fatalf("%d chat files written by refused calls", n)
	}
	w.ok(proto.MethodHello, nil, nil) // the connection is still usable
}

// TestLineOverTheLimitIsAnsweredBeforeTheClose: a client whose line passes
// MaxLine reads why before its connection closes.
func TestLineOverTheLimitIsAnsweredBeforeTheClose(t *testing.T) {
	r := newRig(t, rigOpt{})
	big := r.dial()
	go big.nc.Write(append(bytes.Repeat([]byte("a"), proto.MaxLine+1), '\n')) //nolint:errcheck // fails once the server closes
	rep := big.read()
	if rep.Error == nil || rep.Error.Code != proto.CodeInvalidRequest || !strings.Contains(rep.Error.Message, "a line over 8388608 bytes") {
		t.Fatalf("answered %+v, want the line limit named", rep.Error)
	}
	if err := big.closedByServer(); err != nil {
		t.Fatal(err)
	}
}
