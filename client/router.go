package client

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the TUI's mux over the servers of several hosts: the local
// server's Remote and one Remote per configured host, each over one ssh
// process (DialHost) shared by every view of the TUI. Local chats keep
// their ids; a remote chat's id is "HOST:ID" (HostSep cannot appear in a
// chat id, [a-z0-9-], nor in a host name, [a-z0-9_-]), and every call with
// an id goes to its host with the id as that host knows it.

// HostSep joins a host's name and a chat id there.
const HostSep = ":"

// LinkSSHOptions are added to ssh for the TUI's links to hosts: never ask
// for a password or a host key on the terminal the TUI draws on (stricter,
// not weaker: an unknown key is refused), give up on a host that does not
// answer, and notice a link cut under it within a minute.
func LinkSSHOptions() []string {
	return []string{"-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
		"-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3"}
}

// QualifyID is the id the TUI gives chat id of host ("" for local).
func QualifyID(host, id string) string {
	if host == "" || id == "" {
		return id
	}
	return host + HostSep + id
}

// SplitID is the host of a chat id the TUI gives ("" for local) and the
// id there.
func SplitID(id string) (host, raw string) {
	if h, r, ok := strings.Cut(id, HostSep); ok {
		return h, r
	}
	return "", id
}

// Router is a mux over the local server and the configured hosts. A host
// that does not answer is dialled again in the background, a second after
// the failure and twice as late after each next one, up to HostBackoff;
// once up, its Remote follows it (FollowHost) with the same backoff. The
// hosts are those the local server's config names (SetHosts): one added
// to the file is dialled, one taken out is dropped, while the TUI runs.
type Router struct {
	local *Remote
	// hmu guards hosts (in order) and byName, which SetHosts replaces.
	hmu     sync.RWMutex
	hosts   []*routedHost
	byName  map[string]*routedHost
	changes chan string
	notices chan proto.Notice
	news    chan proto.News
	// hostsChanged signals a change of a host's state (at most one waits);
	// configChanged a config the local server told (at most one waits).
	hostsChanged  chan struct{}
	configChanged chan struct{}
	done          chan struct{}
	closeOnce     sync.Once
	extra         []string

	mu         sync.Mutex
	shownHost  string // whose Remote was last told a chat to Show
	lookedHost string // whose server was last told a chat to Look at
	size       *proto.SizeParams
}

// routedHost is one configured host as the Router holds it.
type routedHost struct {
	host Host
	// gone is closed once the host is no longer configured: its dialling,
	// its link's watch and its forwarding end, and its Remote is closed.
	gone chan struct{}
	mu   sync.Mutex
	r    *Remote // nil until the host first answered
	down string  // why it does not answer now, "" while it does
	// last is the host's chats as last listed: while its link is down
	// they stay in the sidebar, shown as the link left them.
	last []sessions.Entry
}

func (h *routedHost) remote() (*Remote, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.r, h.down
}

// NewRouter makes a Router of the local server's Remote (already
// following its server) and the hosts, in the order given; each host is
// dialled at once in the background. The Router owns local from then on.
// extra are more ssh arguments for every dial (DialHost).
func NewRouter(local *Remote, hosts []Host, extra ...string) *Router {
	rt := &Router{local: local, byName: map[string]*routedHost{}, changes: make(chan string, 1024),
		notices: make(chan proto.Notice, 16), news: make(chan proto.News, 16),
		hostsChanged: make(chan struct{}, 1), configChanged: make(chan struct{}, 1), done: make(chan struct{}), extra: extra}
	local.shareChanges(rt.changes)
	rt.forward("", local, nil)
	rt.SetHosts(hosts)
	return rt
}

// FollowConfig has the Router head the hosts the local server's config
// names, from the server's first answer on and at each change it tells
// (the hosts given to NewRouter, what the client read at its start, until
// then); ConfigChanged signals each config.
func (rt *Router) FollowConfig() {
	rt.local.FollowConfig()
	go rt.followConfig()
}

// SetHosts makes hosts the ones the Router heads, in that order: a host
// new (or reached another way than before) is dialled in the background,
// one no longer named is dropped, its link closed (its chats keep running
// over there), and the others are kept as they are.
func (rt *Router) SetHosts(hosts []Host) {
	rt.hmu.Lock()
	old := rt.byName
	list, byName := make([]*routedHost, 0, len(hosts)), make(map[string]*routedHost, len(hosts))
	changed := len(hosts) != len(rt.hosts)
	for i, h := range hosts {
		if _, twice := byName[h.Name]; twice {
			continue
		}
		rh, ok := old[h.Name]
		if !ok || !sameHost(rh.host, h) {
			rh = &routedHost{host: h, gone: make(chan struct{}), down: "connecting…"}
			changed = true
			go rt.connect(rh)
		} else if i >= len(rt.hosts) || rt.hosts[i] != rh {
			changed = true
		}
		list = append(list, rh)
		byName[h.Name] = rh
	}
	var dropped []*routedHost
	for name, rh := range old {
		if byName[name] != rh {
			dropped = append(dropped, rh)
		}
	}
	rt.hosts, rt.byName = list, byName
	rt.hmu.Unlock()
	for _, rh := range dropped {
		close(rh.gone)
		if r, _ := rh.remote(); r != nil {
			r.Close()
		}
	}
	if changed {
		rt.signalHosts()
	}
}

// followConfig heads the hosts the local server's config names, as it
// tells them, and passes each config on (ConfigChanged).
func (rt *Router) followConfig() {
	for {
		select {
		case <-rt.done:
			return
		case <-rt.local.ConfigChanged():
		}
		if cfg, ok := rt.local.Config(); ok {
			rt.SetHosts(HostsOf(cfg))
		}
		select {
		case rt.configChanged <- struct{}{}:
		default:
		}
	}
}

// Config is the local server's config as last heard; false before any.
func (rt *Router) Config() (proto.ConfigResult, bool) { return rt.local.Config() }

// ConfigChanged signals each config the local server told (at most one
// waits), once the Router heads the hosts it names.
func (rt *Router) ConfigChanged() <-chan struct{} { return rt.configChanged }

// ReadConfig has the local server read its config file again and answers
// what is in effect then; the Router heads its hosts, and ConfigChanged
// signals it.
func (rt *Router) ReadConfig() (proto.ConfigResult, error) { return rt.local.ReadConfig() }

// hostList is the hosts headed now, in order.
func (rt *Router) hostList() []*routedHost {
	rt.hmu.RLock()
	defer rt.hmu.RUnlock()
	return rt.hosts
}

// hostNamed is the host of that name headed now.
func (rt *Router) hostNamed(name string) (*routedHost, bool) {
	rt.hmu.RLock()
	defer rt.hmu.RUnlock()
	rh, ok := rt.byName[name]
	return rh, ok
}

// connect dials a host until it answers, then follows its link's losses
// and returns, telling each change on HostsChanged.
func (rt *Router) connect(rh *routedHost) {
	wait := hostBackoffFirst
	for {
		ctx, cancel := context.WithTimeout(context.Background(), HostTimeout)
		c, err := DialHost(ctx, rh.host, rt.extra...)
		cancel()
		var r *Remote
		if err == nil {
			r, err = NewRemote(c)
		}
		if err == nil {
			r.FollowHost(rh.host, rt.extra...)
			rh.mu.Lock()
			rh.r, rh.down = r, ""
			rh.mu.Unlock()
			select {
			case <-rt.done:
				r.Close()
				return
			case <-rh.gone:
				r.Close()
				return
			default:
			}
			rt.forward(rh.host.Name, r, rh.gone)
			rt.hostUp(r)
			rt.signalHosts()
			rt.followLink(rh, r)
			return
		}
		rh.mu.Lock()
		rh.down = OneLine(err.Error())
		rh.mu.Unlock()
		rt.signalHosts()
		select {
		case <-rt.done:
			return
		case <-rh.gone:
			return
		case <-time.After(wait):
			wait = min(2*wait, HostBackoff)
		}
	}
}

// hostUp tells a host newly up this client's size.
func (rt *Router) hostUp(r *Remote) {
	rt.mu.Lock()
	size := rt.size
	rt.mu.Unlock()
	if size != nil {
		go r.ResizeAll(size.Cols, size.Rows)
	}
}

// followLink records each loss and return of a host's link.
func (rt *Router) followLink(rh *routedHost, r *Remote) {
	for {
		select {
		case <-rt.done:
			return
		case <-rh.gone:
			return
		case <-r.Link():
		}
		down := ""
		if lost := r.Lost(); lost != nil {
			down = OneLine(lost.Error())
		}
		rh.mu.Lock()
		rh.down = down
		rh.mu.Unlock()
		rt.signalHosts()
	}
}

// OneLine shortens an error's text to its first line, at most 200 bytes.
func OneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:199] + "…"
	}
	return s
}

func (rt *Router) signalHosts() {
	select {
	case rt.hostsChanged <- struct{}{}:
	default:
	}
}

// forward passes a Remote's changes, notices and news on, with ids
// qualified by host, until the Router closes or gone does (nil: never).
// The local Remote tells its changes on the Router's channel itself.
func (rt *Router) forward(host string, r *Remote, gone <-chan struct{}) {
	changes := r.Changes()
	if host == "" {
		changes = nil
	}
	go func() {
		for {
			select {
			case <-rt.done:
				return
			case <-gone:
				return
			case id := <-changes:
				select {
				case rt.changes <- QualifyID(host, id):
				case <-rt.done:
					return
				}
			case n := <-r.Notices():
				n.ID = QualifyID(host, n.ID)
				if host != "" && !strings.HasPrefix(n.Title, host+": ") {
					n.Title = host + ": " + n.Title
				}
				select {
				case rt.notices <- n:
				default:
				}
			case n := <-r.News():
				for i := range n.Chats {
					n.Chats[i] = QualifyID(host, n.Chats[i])
				}
				if host != "" && n.ConfigRefused != "" {
					n.ConfigRefused = "host " + host + ": " + n.ConfigRefused
				}
				select {
				case rt.news <- n:
				default:
				}
			}
		}
	}()
}

// Hosts is every host's state, local first, then the hosts in order.
func (rt *Router) Hosts() []proto.HostStatus {
	hosts := rt.hostList()
	out := make([]proto.HostStatus, 0, len(hosts)+1)
	local := proto.HostStatus{Name: "local"}
	if lost := rt.local.Lost(); lost != nil {
		local.Down = OneLine(lost.Error())
	}
	out = append(out, local)
	for _, rh := range hosts {
		_, down := rh.remote()
		out = append(out, proto.HostStatus{Name: rh.host.Name, Remote: true, Down: down})
	}
	return out
}

// HostsChanged signals each change of a host's state (at most one waits):
// Hosts says what it is now.
func (rt *Router) HostsChanged() <-chan struct{} { return rt.hostsChanged }

// HostRemote is the Remote of a host ("" for local), nil while it has
// never answered.
func (rt *Router) HostRemote(host string) *Remote {
	if host == "" {
		return rt.local
	}
	if rh, ok := rt.hostNamed(host); ok {
		r, _ := rh.remote()
		return r
	}
	return nil
}

// target is the Remote a chat id goes to, and the id there.
func (rt *Router) target(id string) (*Remote, string, error) {
	host, raw := SplitID(id)
	r, err := rt.on(host)
	return r, raw, err
}

// on is a host's Remote, or why there is none.
func (rt *Router) on(host string) (*Remote, error) {
	if host == "" {
		return rt.local, nil
	}
	rh, ok := rt.hostNamed(host)
	if !ok {
		return nil, fmt.Errorf("no host %q is configured", host)
	}
	r, down := rh.remote()
	if r == nil {
		return nil, fmt.Errorf("host %s does not answer: %s", host, down)
	}
	return r, nil
}

// qualify gives a chat the host's ids (its own and its parent's).
func qualify(host string, m *sessions.Meta) *sessions.Meta {
	if m != nil && host != "" {
		m.ID = QualifyID(host, m.ID)
		m.Parent = QualifyID(host, m.Parent)
	}
	return m
}

func qualifyEntry(host string, e sessions.Entry) sessions.Entry {
	e.ID = QualifyID(host, e.ID)
	e.Meta = qualify(host, e.Meta)
	return e
}

// LinkPid is the pid of the ssh process of host's link, or 0 while it has
// none.
func (rt *Router) LinkPid(host string) int {
	if r := rt.HostRemote(host); r != nil {
		return r.LinkPid()
	}
	return 0
}

// Close closes every link; every chat keeps running on its host.
func (rt *Router) Close() {
	rt.closeOnce.Do(func() {
		close(rt.done)
		rt.local.Close()
		for _, rh := range rt.hostList() {
			if r, _ := rh.remote(); r != nil {
				r.Close()
			}
		}
	})
}

// Link, Lost, StartServer and Connected are the local server's (see
// Remote).
func (rt *Router) Link() <-chan struct{}                   { return rt.local.Link() }
func (rt *Router) Lost() error                             { return rt.local.Lost() }
func (rt *Router) StartServer() error                      { return rt.local.StartServer() }
func (rt *Router) Connected() (connecting bool, err error) { return rt.local.Connected() }
