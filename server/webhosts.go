package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file lets a page see the chats of the other hosts the TUI sees. A
// browser reaches this server only; for a chat on [host.NAME] the page
// calls MethodHost, and the server makes the call over a link of its own
// to that host, opened with OpenSSH as the TUI opens one (client.DialHost:
// host-key checking kept, every string the host sends cleaned as it
// arrives). The link's first call there is MethodWebCaller, so the host
// holds the page to a web caller's rights by its own rules: its own web
// roots, no lasting grants. A host whose acpmux-tui cannot do that is
// refused, never reached with a local client's rights. The host's
// notifications come back as NotifyHost, each naming its host. A web
// connection's links end with it.

// hostLinks are one web connection's links to other hosts, by name.
type hostLinks struct {
	mu     sync.Mutex
	links  map[string]*hostLink
	closed bool
	// keys are the keys waiting to go to each host, in the order they
	// came (relayKeys): each relayed call runs in a goroutine of its own,
	// and two keys must not pass each other on the way.
	keys map[string]chan Request
}

// maxRelayedKeys bounds the keys one web caller has waiting for one host;
// past it a key is refused, not queued without end.
const maxRelayedKeys = 256

// hostLink is a link being opened (ready not yet closed) or open.
type hostLink struct {
	ready chan struct{}
	conn  *client.Conn
	err   error
}

// webCaller answers MethodWebCaller: the connection is a web caller's
// from now on.
func (s *Server) webCaller(c *conn, _ struct{}) (proto.EmptyResult, *Error) {
	c.web.Store(true)
	return proto.EmptyResult{}, nil
}

// hostCall answers MethodHost: the call made on the host's server over the
// connection's link there, its answer or its error as the host gave it.
func (s *Server) hostCall(c *conn, p proto.HostCallParams) (json.RawMessage, *Error) {
	if !c.web.Load() {
		return nil, errorf(proto.CodeMethodNotFound, "Method not found: %s relays a web caller's calls; a local client reaches a host itself (--host NAME)", proto.MethodHost)
	}
	if p.Method == proto.MethodHost || p.Method == proto.MethodWebCaller || !proto.Extension(p.Method) {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: %q is not relayed to a host", clipText(p.Method))
	}
	if _, ok := webRules[p.Method]; !ok {
		return nil, errorf(proto.CodeMethodNotFound, "Method not found: %q is not for web callers", clipText(p.Method))
	}
	hc, ok := s.config().Host[p.Host]
	if !ok {
		return nil, refused(fmt.Sprintf("no host %q in the config ([host.NAME])", clipText(p.Host)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A call lasts as long as it takes on the host (a prompt, a turn), or
	// until the web caller goes.
	go func() {
		select {
		case <-c.gone:
			cancel()
		case <-ctx.Done():
		}
	}()
	link, err := c.hosts.open(s, c, client.Host{Name: p.Host, HostConfig: hc})
	if err != nil {
		return nil, errorf(proto.CodeFailed, "host %s: %v", p.Host, err)
	}
	var raw json.RawMessage
	params := any(p.Params)
	if len(p.Params) == 0 {
		params = struct{}{}
	}
	if err := link.Call(ctx, p.Method, params, &raw); err != nil {
		var rpc *client.RPCError
		if errors.As(err, &rpc) {
			return nil, &Error{Code: rpc.Code, Message: rpc.Message, Data: rpc.Data}
		}
		return nil, errorf(proto.CodeFailed, "host %s: %v", p.Host, err)
	}
	if raw == nil {
		raw = json.RawMessage("null")
	}
	return raw, nil
}

// open returns the connection's link to host h, opening it on first use;
// calls that come while it opens wait for it.
func (l *hostLinks) open(s *Server, c *conn, h client.Host) (*client.Conn, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, errors.New("the connection is closing")
	}
	if l.links == nil {
		l.links = map[string]*hostLink{}
	}
	if hl := l.links[h.Name]; hl != nil {
		l.mu.Unlock()
		<-hl.ready
		return hl.conn, hl.err
	}
	hl := &hostLink{ready: make(chan struct{})}
	l.links[h.Name] = hl
	l.mu.Unlock()

	hl.conn, hl.err = dialAsWeb(h)
	if hl.err != nil {
		l.forget(h.Name, hl)
		close(hl.ready)
		return nil, hl.err
	}
	hl.conn.OnNotify(func(method string, params json.RawMessage) {
		c.notify(proto.NotifyHost, proto.HostNotice{Host: h.Name, Method: method, Params: append(json.RawMessage(nil), params...)})
	})
	close(hl.ready)
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		hl.conn.Close()
	}
	go func() {
		<-hl.conn.Done()
		l.forget(h.Name, hl)
		if !isGone(c) {
			why := "the link closed"
			if err := client.LinkError(hl.conn); err != nil {
				why = err.Error()
			}
			c.notify(proto.NotifyHostDown, proto.HostDown{Host: h.Name, Error: why})
		}
		s.opt.Logger.Info("a web caller's link to a host ended", "host", h.Name)
	}()
	return hl.conn, nil
}

// dialAsWeb opens a link to h and makes it a web caller's there.
func dialAsWeb(h client.Host) (*client.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), client.HostTimeout)
	defer cancel()
	conn, err := client.DialHost(ctx, h)
	if err != nil {
		return nil, err
	}
	if err := conn.Call(ctx, proto.MethodWebCaller, struct{}{}, nil); err != nil {
		conn.Close()
		var rpc *client.RPCError
		if errors.As(err, &rpc) && rpc.Code == proto.CodeMethodNotFound {
			return nil, fmt.Errorf("its acpmux-tui cannot hold a web caller to its web roots, so the page does not reach it: %s", h.InstallHint())
		}
		return nil, err
	}
	return conn, nil
}

// forget drops hl from the links when it is still the one for name.
func (l *hostLinks) forget(name string, hl *hostLink) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.links[name] == hl {
		delete(l.links, name)
	}
}

// closeAll closes every link, as the web connection ends.
func (l *hostLinks) closeAll() {
	l.mu.Lock()
	l.closed = true
	links := l.links
	l.links = nil
	l.mu.Unlock()
	for _, hl := range links {
		<-hl.ready
		if hl.conn != nil {
			hl.conn.Close()
		}
	}
}

// relayKeys queues a web caller's MethodHost call of MethodWrite for its
// host, in the order the keys came, and reports true; any other call it
// leaves (false). One goroutine per host makes the queued calls one after
// another and answers each, so a host types the keys in the order they
// were typed, as a local chat does.
func (c *conn) relayKeys(req Request) bool {
	var p proto.HostCallParams
	if json.Unmarshal(req.Params, &p) != nil || p.Method != proto.MethodWrite {
		return false
	}
	l := &c.hosts
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return false
	}
	if l.keys == nil {
		l.keys = map[string]chan Request{}
	}
	q, ok := l.keys[p.Host]
	if !ok {
		q = make(chan Request, maxRelayedKeys)
		l.keys[p.Host] = q
		c.hold()
		go func() {
			defer c.release()
			for {
				select {
				case r := <-q:
					c.run(r)
				case <-c.gone:
					return
				}
			}
		}()
	}
	l.mu.Unlock()
	select {
	case q <- req:
	default:
		if !req.Notification() {
			c.reply(req.ID, nil, errorf(proto.CodeFailed, "host %s: %d keys wait for it already", clipText(p.Host), maxRelayedKeys))
		}
	}
	return true
}
