package server

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/acp"
	"github.com/acpmux/acpmux-tui/internal/rpcline"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file serves an ACP client whose stdio `acpmux-tui acp` handed over
// (proto.AdoptParams): the connection is the door, on the client's own
// pipes, and the door's process, which copied every line both ways (a
// wake-up each way of every turn), only waits. The rules that process
// kept are kept here: initialize comes first, and it names the harness of
// `acp --harness`. So that the door can still answer the client's open
// requests should this server die under it, the server keeps them in a
// file the door handed over with its stdio: a request as it is taken, its
// answer once written.

// adoptedDoor is the door part of a connection whose stdio was handed
// over by `acpmux-tui acp`.
type adoptedDoor struct {
	harness string

	mu   sync.Mutex
	log  *openLog                                // the door's file of open requests
	open map[string]struct{}                     // ids taken and not answered
	sock interface{ Write([]byte) (int, error) } // the door's socket, for AdoptEndedLine
}

// adoptsDoor reports whether a connection's first message hands over a
// door's stdio, and the harness it names.
func adoptsDoor(first []byte) (string, bool) {
	req, ok, rpcErr := DecodeLine(first)
	if !ok || rpcErr != nil || req.Method != proto.MethodAdopt {
		return "", false
	}
	var p proto.AdoptParams
	if json.Unmarshal(req.Params, &p) != nil || p.Door == nil {
		return "", false
	}
	return p.Door.Harness, true
}

// adoptDoor serves the connection as the door on the client's stdio,
// fds[0] and fds[1], keeping its open requests in fds[2]; false leaves the
// descriptors to the caller.
func (c *conn) adoptDoor(a *adoptable, fds []int, harness string) bool {
	if !c.adopt(a, fds[:2]) {
		return false
	}
	// The door is set up by the client's first call, initialize, as on
	// the socket.
	c.called.Store(false)
	c.stdioDoor = &adoptedDoor{harness: harness, log: newOpenLog(os.NewFile(uintptr(fds[2]), "door open requests")),
		open: map[string]struct{}{}, sock: a.UnixConn}
	return true
}

// gate applies the door's rules to a request of its client before it
// runs: false when it was answered here (not initialize first). It names
// the harness in initialize, and records a request taken.
func (d *adoptedDoor) gate(c *conn, req *Request) bool {
	if !c.called.Load() && req.Method != sdk.AgentMethodInitialize {
		if !req.Notification() {
			c.reply(req.ID, nil, errorf(proto.CodeInvalidRequest, "Invalid Request: initialize first"))
		}
		return false
	}
	if req.Method == sdk.AgentMethodInitialize && d.harness != "" {
		if p, err := acp.WithMeta(req.Params, acp.MetaHarness, d.harness); err == nil {
			req.Params = p
		} // else not an object: the door says why
	}
	if !req.Notification() {
		d.record(proto.DoorTook, req.ID)
	}
	return true
}

// wrote records that line went to the client: an answer closes its
// request.
func (d *adoptedDoor) wrote(line []byte) {
	if m, ok := rpcline.Split(line); ok && m.Method == nil && m.ID != nil {
		d.record(proto.DoorAnswered, m.ID)
	}
}

// record writes one line of the open requests, emptying the file once
// none is open. A line not kept only weakens what the door can answer
// should the server die: it is not the client's error.
func (d *adoptedDoor) record(how byte, id json.RawMessage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := string(id)
	if how == proto.DoorAnswered {
		if _, ok := d.open[key]; !ok {
			return
		}
		delete(d.open, key)
		if len(d.open) == 0 {
			d.log.empty()
			return
		}
	} else {
		d.open[key] = struct{}{}
	}
	d.log.add(how, id, func() []string { return slices.Collect(maps.Keys(d.open)) })
}

// ended tells the door the connection ended by itself (the client went, or
// the server stops), and lets go of the file.
func (d *adoptedDoor) ended() {
	if w, ok := d.sock.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = w.SetWriteDeadline(time.Now().Add(time.Second))
	}
	_, _ = d.sock.Write([]byte(proto.AdoptEndedLine))
	d.mu.Lock()
	d.log.close()
	d.mu.Unlock()
}
