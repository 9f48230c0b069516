package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

// handedDoor is an ACP client's stdio handed over as `acpmux-tui acp`
// hands it: the test writes the client's lines to in and reads the
// server's from out; open is the file of open requests.
type handedDoor struct {
	t    *testing.T
	nc   *net.UnixConn
	in   *os.File
	out  *bufio.Reader
	open *os.File
}

func handDoor(t *testing.T, r *rig, harness string) *handedDoor {
	t.Helper()
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	open, err := os.CreateTemp(t.TempDir(), "door-open")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { open.Close() })
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "adopt", "method": proto.MethodAdopt,
		"params": proto.AdoptParams{Door: &proto.AdoptDoor{Harness: harness}}})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: proto.SocketPath(r.home), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	if _, _, err := nc.WriteMsgUnix(append(line, '\n'), unix.UnixRights(int(inR.Fd()), int(outW.Fd()), int(open.Fd())), nil); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(hangDeadline))
	answer, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil || answer != proto.AdoptedLine {
		t.Fatalf("the door's hand-over was answered %q, %v", answer, err)
	}
	inR.Close()
	outW.Close()
	return &handedDoor{t: t, nc: nc, in: inW, out: bufio.NewReader(outR), open: open}
}

func (d *handedDoor) send(line string) {
	d.t.Helper()
	if _, err := d.in.WriteString(line + "\n"); err != nil {
		d.t.Fatal(err)
	}
}

// answer reads the client's lines up to the answer to id.
func (d *handedDoor) answer(id string) reply {
	d.t.Helper()
	for {
		line, err := d.out.ReadBytes('\n')
		if err != nil {
			d.t.Fatalf("no answer to %s on the handed stdout: %v", id, err)
		}
		var rep reply
		if json.Unmarshal(line, &rep) == nil && string(rep.ID) == id {
			return rep
		}
	}
}

func (d *handedDoor) openLog() string {
	d.t.Helper()
	b, err := io.ReadAll(io.NewSectionReader(d.open, 0, 1<<30))
	if err != nil {
		d.t.Fatal(err)
	}
	return string(proto.DoorLog(b))
}

// TestDoorHandedOver: an ACP client's stdio handed over is the door:
// initialize first (a call before it is refused, the connection kept),
// initialize names the harness of `acp --harness` for new chats, each
// request is in the file of open requests while it runs and out of it once
// answered (the file empty then), and when the client closes its input
// the server says the connection ended on the socket before it closes it.
func TestDoorHandedOver(t *testing.T) {
	r := newDoorRig(t, nil)
	// The harness of --harness reaches initialize: one not in the table
	// is refused by name.
	bad := handDoor(t, r, "nosuch")
	bad.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	if rep := bad.answer("1"); rep.Error == nil || !strings.Contains(rep.Error.Message, "nosuch") {
		t.Fatalf("initialize of a door on harness nosuch: %+v", rep)
	}

	d := handDoor(t, r, "fake")
	d.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	if rep := d.answer("1"); rep.Error == nil || rep.Error.Code != proto.CodeInvalidRequest || !strings.Contains(rep.Error.Message, "initialize first") {
		t.Fatalf("a call before initialize: %+v", rep)
	}
	d.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}`)
	if rep := d.answer("2"); rep.Error != nil {
		t.Fatalf("initialize: %+v", rep.Error)
	}
	proj := t.TempDir()
	d.send(`{"jsonrpc":"2.0","id":"new","method":"session/new","params":{"cwd":"` + proj + `","mcpServers":[]}}`)
	rep := d.answer(`"new"`)
	var made struct {
		SessionID string `json:"sessionId"`
	}
	if rep.Error != nil || json.Unmarshal(rep.Result, &made) != nil {
		t.Fatalf("session/new: %+v %+v", rep, rep.Error)
	}
	var list proto.ListResult
	r.dial().ok(proto.MethodList, nil, &list)
	var chat proto.ChatJSON
	for _, c := range list.Chats {
		if c.ID == made.SessionID {
			chat = c
		}
	}
	if chat.Harness != "fake" || chat.Origin != "acp" {
		t.Fatalf("the door's chat is %+v, want an ACP chat of fake", chat)
	}
	wait.UntilShow(t, "the open requests' file emptied once each was answered", func() bool { return d.openLog() == "" }, d.openLog)

	d.in.Close()
	d.nc.SetReadDeadline(time.Now().Add(hangDeadline))
	said, err := io.ReadAll(d.nc)
	if err != nil || string(said) != proto.AdoptEndedLine {
		t.Fatalf("the socket as the client left: %q, %v", said, err)
	}
}

// TestDoorHandedOverKeepsOpenRequests: a request the server took and has
// answered leaves the file of open requests empty (the file's lines:
// door_openlog_test.go).
func TestDoorHandedOverKeepsOpenRequests(t *testing.T) {
	r := newDoorRig(t, nil)
	d := handDoor(t, r, "")
	d.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	d.answer("1")
	// A permission request of the server's is not the client's: the
	// client's own call is what is kept.
	d.send(`{"jsonrpc":"2.0","id":"slow-1","method":"session/load","params":{"sessionId":"nosuch","cwd":"/","mcpServers":[]}}`)
	rep := d.answer(`"slow-1"`)
	if rep.Error == nil {
		t.Fatalf("session/load of no chat: %+v", rep)
	}
	wait.UntilShow(t, "the file emptied after the refusal", func() bool { return d.openLog() == "" }, d.openLog)
}
