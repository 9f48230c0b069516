package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/unixpair"

	"github.com/acpmux/acpmux-tui/proto"
)

// readInput reads one line the server would get and returns its data,
// failing unless it is an attachInput notification (no id: no answer
// comes back for it) for chat c1.
func readInput(t *testing.T, peer *bufio.Reader, nc net.Conn) []byte {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := peer.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read the input's line: %v", err)
	}
	var n struct {
		ID     *json.RawMessage        `json:"id"`
		Method string                  `json:"method"`
		Params proto.AttachInputParams `json:"params"`
	}
	if err := json.Unmarshal(line, &n); err != nil || n.Method != proto.MethodAttachInput || n.ID != nil || n.Params.ID != "c1" {
		t.Fatalf("line %.200q: want a notification of %s for c1 (%v)", line, proto.MethodAttachInput, err)
	}
	return n.Params.Data
}

// TestTypedKeyGoesAtOnce: a key typed while nothing waits is written by
// the goroutine that read it, as a notification, before add returns: no
// sender is woken for it and no answer comes back.
func TestTypedKeyGoesAtOnce(t *testing.T) {
	ours, theirs := unixpair.New(t)
	c := newConn(ours)
	defer c.Close()
	q := newTypedInput(c, "c1") // no sender runs
	q.add([]byte("k"))
	if got := readInput(t, bufio.NewReader(theirs), theirs); string(got) != "k" {
		t.Fatalf("input %q, want %q", got, "k")
	}
}

// TestTypedInputKeepsItsOrderPastAFullLink: input added while the link
// takes no more is never lost nor reordered: a line written in part at
// once is finished by the sender before the lines queued after it, and
// add never waits meanwhile.
func TestTypedInputKeepsItsOrderPastAFullLink(t *testing.T) {
	ours, theirs := unixpair.New(t)
	c := newConn(ours)
	defer c.Close()
	q := newTypedInput(c, "c1")
	var typed bytes.Buffer
	for i := 0; ; i++ {
		chunk := bytes.Repeat([]byte{'a' + byte(i%26)}, 60<<10)
		q.add(chunk) // never waits, however full the link
		typed.Write(chunk)
		q.mu.Lock()
		full := q.carry != nil || len(q.buf) > 0
		q.mu.Unlock()
		if full && i > 0 {
			q.add([]byte("z"))
			typed.WriteString("z")
			break
		}
		if i > 100 {
			t.Fatal("the link never filled")
		}
	}
	sent := make(chan struct{})
	go func() { defer close(sent); q.send() }()
	q.close()
	peer := bufio.NewReaderSize(theirs, 1<<20)
	var got bytes.Buffer
	for got.Len() < typed.Len() {
		got.Write(readInput(t, peer, theirs))
	}
	if !bytes.Equal(got.Bytes(), typed.Bytes()) {
		t.Fatalf("the server got %d bytes, not the %d typed in order", got.Len(), typed.Len())
	}
	select {
	case <-sent:
	case <-time.After(time.Minute):
		t.Fatal("the sender did not end once all was sent and the input closed")
	}
}

// TestKeyPumpHandsOnInOrder: chunks read while no attach consumes them wait
// on the channel and reach the next consumer first, in order; the ones
// after go straight to it; the end of the input is told once consumed.
func TestKeyPumpHandsOnInOrder(t *testing.T) {
	r, w := io.Pipe()
	k := pumpKeys(r)
	w.Write([]byte("a"))
	w.Write([]byte("b"))
	got := make(chan string, 8)
	k.consume(func(chunk []byte, end bool) {
		if end {
			got <- "END"
			return
		}
		got <- string(chunk)
	})
	w.Write([]byte("c"))
	w.Close()
	var all []string
	for len(all) < 4 {
		select {
		case s := <-got:
			all = append(all, s)
		case <-time.After(time.Minute):
			t.Fatalf("got %q; want a, b, c and the end", all)
		}
	}
	if want := []string{"a", "b", "c", "END"}; !slices.Equal(all, want) {
		t.Fatalf("got %q, want %q", all, want)
	}
}

// TestEchoWrittenByTheReader: output of the generation shown, with nothing
// waiting before it and a terminal that takes it, is written to the
// terminal by the connection's reader (no writer woken); output that comes
// while the writer writes what it took waits for it, in order.
func TestEchoWrittenByTheReader(t *testing.T) {
	tt := newTestTerminal(t, 80, 24)
	bt, err := borrowTerminal(tt.tty, tt.tty)
	if err != nil {
		t.Fatal(err)
	}
	defer bt.restore()
	st := newAttachStream("c1")
	st.redraw(1, nil)
	st.mu.Lock()
	st.term, st.pending, st.redrawLen = bt, nil, 0 // as writeTo leaves it once it has drawn the redraw
	st.mu.Unlock()

	st.output(1, []byte("echo-now"))
	tt.waitText("echo-now") // no writeTo runs: the reader wrote it

	st.mu.Lock()
	st.writing = true
	st.mu.Unlock()
	st.output(1, []byte("later"))
	st.mu.Lock()
	pending := string(st.pending)
	st.mu.Unlock()
	if pending != "later" {
		t.Fatalf("output while the writer writes: %q waits, want %q", pending, "later")
	}
}
