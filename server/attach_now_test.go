package server

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/unixpair"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestAttachOutputGoesFromTheReader: a harness's small output (a key's
// echo) with nothing waiting before it is written by the goroutine that
// hands it to the attachment, no flusher woken; output that comes while
// the flusher is sending what it took waits for it, so the stream keeps
// its order.
func TestAttachOutputGoesFromTheReader(t *testing.T) {
	ours, theirs := unixpair.New(t)
	s := &Server{opt: Options{WriteTimeout: time.Minute, QueueLen: 8, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	c := newConn(s, ours)
	a := newAttachment(s, c, "c1", 80, 24)
	a.answer() // the attach call has answered: output may go
	peer := bufio.NewReader(theirs)
	read := func() proto.OutputParams {
		t.Helper()
		theirs.SetReadDeadline(time.Now().Add(time.Minute))
		line, err := peer.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read the output's line (no flusher runs: Output must write it): %v", err)
		}
		var n struct {
			Method string             `json:"method"`
			Params proto.OutputParams `json:"params"`
		}
		if err := json.Unmarshal(line, &n); err != nil || n.Method != proto.NotifyOutput {
			t.Fatalf("line %q: want a %s notification (%v)", line, proto.NotifyOutput, err)
		}
		return n.Params
	}

	a.Output([]byte("k"))
	if p := read(); string(p.Data) != "k" || p.ID != "c1" {
		t.Fatalf("output %+v: want chat c1's %q", p, "k")
	}

	a.mu.Lock()
	a.sending = true // as the flusher is while it sends what it took
	a.mu.Unlock()
	a.Output([]byte("l"))
	a.mu.Lock()
	waiting := string(a.out)
	a.mu.Unlock()
	if waiting != "l" {
		t.Fatalf("output while the flusher sends: %q waits for it, want %q", waiting, "l")
	}
}
