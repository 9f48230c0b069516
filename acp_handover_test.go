package main

import (
	"encoding/json"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenRequests: the door reads the requests the server took and did
// not answer from the file it kept, in the order taken; a line cut short
// as the server died is skipped, and so is what lies past the first NUL
// (a server that maps the file keeps it longer than its lines).
func TestOpenRequests(t *testing.T) {
	f, err := openRequestsFile()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("+1\n+\"two\"\n+3\n-1\n+\"fo\x00\"\n+5\n\x00\x00"); err != nil {
		t.Fatal(err)
	}
	got := openRequests(f)
	if want := []json.RawMessage{json.RawMessage(`"two"`), json.RawMessage(`3`)}; len(got) != 2 || string(got[0]) != string(want[0]) || string(got[1]) != string(want[1]) {
		t.Fatalf("open requests %s, want %s", got, want)
	}
}

// TestUnreadRequests: what the client wrote that nobody read is read
// without waiting, and its requests' ids are answered; notifications and
// answers are not requests.
func TestUnreadRequests(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	lines := `{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/cancel","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"result":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":"x","method":"session/new","params":{}}` + "\n"
	if _, err := w.WriteString(lines); err != nil {
		t.Fatal(err)
	}
	got := unreadRequests(r) // w stays open: a read that waited would hang here
	if len(got) != 2 || string(got[0]) != "9" || string(got[1]) != `"x"` {
		t.Fatalf("unread requests %s", got)
	}
	if nb, err := unix.FcntlInt(r.Fd(), unix.F_GETFL, 0); err != nil || nb&unix.O_NONBLOCK != 0 {
		t.Fatalf("the input is left non-blocking (%v)", err)
	}
}
