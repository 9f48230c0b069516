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

	"github.com/acpmux/acpmux-tui/proto"
)

// handOver dials the rig's server and hands it in and out as the proxy
// does; it returns the socket and the answer line the socket gave.
func handOver(t *testing.T, r *rig, first string, in, out *os.File) (*net.UnixConn, string) {
	t.Helper()
	nc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: proto.SocketPath(r.home), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	if _, _, err := nc.WriteMsgUnix([]byte(first), unix.UnixRights(int(in.Fd()), int(out.Fd())), nil); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(hangDeadline))
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer on the socket to %q within %s: %v", first, hangDeadline, err)
	}
	return nc, line
}

func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestStdioHandedOver: a client that hands the server its stdin and stdout
// (the proxy over ssh) has its calls read from the one and answered on the
// other, nothing on the socket after the hand-over's answer; when its
// stdin ends the server closes the socket, which ends the proxy.
func TestStdioHandedOver(t *testing.T) {
	r := newRig(t, rigOpt{})
	inR, inW := pipe(t)   // what ssh would write to the proxy's stdin
	outR, outW := pipe(t) // what the proxy's stdout would take to ssh
	nc, answer := handOver(t, r, proto.AdoptLine, inR, outW)
	if answer != proto.AdoptedLine {
		t.Fatalf("the hand-over was answered %q", answer)
	}
	// Ours are the client's copies: the server holds its own now.
	inR.Close()
	outW.Close()
	if _, err := inW.WriteString(`{"jsonrpc":"2.0","id":1,"method":"` + proto.MethodHello + `"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	outR.SetReadDeadline(time.Now().Add(hangDeadline))
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer on the handed stdout within %s: %v", hangDeadline, err)
	}
	var hello struct {
		ID     int               `json:"id"`
		Result proto.HelloResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &hello); err != nil || hello.ID != 1 || hello.Result.Pid != os.Getpid() {
		t.Fatalf("the hello's answer on stdout: %q (%v)", line, err)
	}
	inW.Close()
	nc.SetReadDeadline(time.Now().Add(hangDeadline))
	if rest, err := io.ReadAll(nc); err != nil || len(rest) != 0 {
		t.Fatalf("the socket after stdin ended: %q, %v; want it closed with nothing more", rest, err)
	}
	if _, err := io.ReadAll(outR); err != nil {
		t.Fatalf("the handed stdout was not closed by the server: %v", err)
	}
}

// TestDescriptorsWithAnythingElseAreClosed: descriptors that come with a
// first message other than the hand-over are closed, and the message is
// read as the connection's lines.
func TestDescriptorsWithAnythingElseAreClosed(t *testing.T) {
	r := newRig(t, rigOpt{})
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	_, answer := handOver(t, r, `{"jsonrpc":"2.0","id":7,"method":"`+proto.MethodHello+`"}`+"\n", inR, outW)
	if !strings.Contains(answer, `"id":7`) || !strings.Contains(answer, `"result"`) {
		t.Fatalf("the hello sent with descriptors was answered %q", answer)
	}
	inW.Close()
	outW.Close()
	// Had the server kept a copy of stdout's write end, this read would
	// wait for it.
	outR.SetReadDeadline(time.Now().Add(hangDeadline))
	if _, err := io.ReadAll(outR); err != nil {
		t.Fatalf("the server kept the descriptors it was not handed over: %v", err)
	}
	_ = inR
}
