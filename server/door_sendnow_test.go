package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/acpmux/acpmux-tui/acp"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestDoorUpdateGoesOutFromTheGoroutineThatHeardIt: an update for an ACP
// connection with nothing waiting before it is queued by push itself, with
// no watcher goroutine to hand it to; one that would pass entries still
// waiting (a batch on its way), and the modes-and-options mark, wait in
// the backlog for the watcher, in order.
func TestDoorUpdateGoesOutFromTheGoroutineThatHeardIt(t *testing.T) {
	s := &Server{opt: Options{QueueLen: 8, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	a, b := net.Pipe() // not a unix socket: every line goes to the queue, where the test reads it
	defer a.Close()
	defer b.Close()
	c := newConn(s, a)
	c.door = acp.NewDoor(nil, "test")
	w := &watcher{c: c, feed: &chatFeed{s: s, id: "k3x9q2"}, wake: make(chan struct{}, 1), stop: make(chan struct{})}

	w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryAgent, Text: "first"}}, false)
	if len(c.out) != 1 || len(w.backlog) != 0 {
		t.Fatalf("after one update: %d lines queued, %d entries in the backlog; want the line queued", len(c.out), len(w.backlog))
	}
	var n struct {
		Method string `json:"method"`
		Params struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	if err := json.Unmarshal(<-c.out, &n); err != nil || n.Method != acp.MethodUpdate || n.Params.SessionID != "k3x9q2" || n.Params.Update.Content.Text != "first" {
		t.Fatalf("queued %+v (%v), want the session/update of \"first\"", n, err)
	}
	c.waiting.Add(-1)

	w.sending = true // the watcher has a batch on its way
	w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryAgent, Text: "second"}}, false)
	w.sending = false
	w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryAgent, Text: "third"}}, false)
	if len(c.out) != 0 || len(w.backlog) != 1 || w.backlog[0].Text != "secondthird" {
		t.Fatalf("behind a batch: %d lines queued, backlog %+v; want both in the backlog, joined", len(c.out), w.backlog)
	}
	w.take()
	w.queued()
	w.markConfig()
	if len(c.out) != 0 || len(w.backlog) != 1 || w.backlog[0].Kind != acp.EntrySessionConfig {
		t.Fatalf("the modes-and-options mark: %d lines queued, backlog %+v; want it in the backlog", len(c.out), w.backlog)
	}
}
