package mux

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

// TestPtyInputNeverWaits: typing to a harness that is not reading returns
// at once, however much was typed, up to the backlog's bound, past which a
// write is refused; once the harness reads, everything accepted arrives in
// the order it was typed, and writes go straight through again.
func TestPtyInputNeverWaits(t *testing.T) {
	master, tty := rawPty(t)
	in := newPtyInput(master)

	// Far more than a pty holds, typed while nothing reads the tty.
	var want bytes.Buffer
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB
	var refused error
	for i := 0; refused == nil; i++ {
		c := append([]byte{byte('A' + i%26)}, chunk...)
		if refused = in.write(c); refused == nil {
			want.Write(c)
		}
	}
	if !errors.Is(refused, errInputFull) {
		t.Fatalf("a write past the backlog's bound: %v, want errInputFull", refused)
	}
	if want.Len() < maxInputBacklog {
		t.Fatalf("only %d bytes accepted before a refusal", want.Len())
	}
	tail := []byte("typed after the refusal")
	got := make([]byte, 0, want.Len()+len(tail))
	buf := make([]byte, 64<<10)
	tty.SetReadDeadline(time.Now().Add(time.Minute))
	for len(got) < want.Len() {
		n, err := tty.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("read %d of %d bytes: %v", len(got), want.Len(), err)
		}
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the harness read %d bytes out of order or changed", len(got))
	}
	if err := in.write(tail); err != nil {
		t.Fatalf("a write once the backlog drained: %v", err)
	}
	if _, err := io.ReadFull(tty, buf[:len(tail)]); err != nil || !bytes.Equal(buf[:len(tail)], tail) {
		t.Fatalf("read %q, %v; want %q", buf[:len(tail)], err, tail)
	}
}

// TestPtyInputAfterTheHarness: once the pty is gone, a write fails, and
// every one after it, saying so.
func TestPtyInputAfterTheHarness(t *testing.T) {
	master, tty := rawPty(t)
	in := newPtyInput(master)
	tty.Close()
	master.Close()
	for range 2 {
		if err := in.write([]byte("x")); !exited(err) {
			t.Fatalf("a write after the pty closed: %v, want one that says it exited", err)
		}
	}
}
