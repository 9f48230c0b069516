package web

import (
	"log/slog"
	"net"
	"sync"
	"time"
)

// boundedListener counts the TCP connections it has accepted and that are
// still open, by remote IP and in all, and closes a newcomer at accept when
// either count is full: one client (a page in a loop, a script gone wrong)
// cannot take every connection the others need. A connection stays counted
// until it closes, hijacked WebSockets included.
type boundedListener struct {
	net.Listener
	perAddr, all int
	log          *slog.Logger

	mu     sync.Mutex
	byIP   map[string]int
	total  int
	warned map[string]time.Time // when each address was last warned about
	// window and inWindow bound the warnings in all to warnBurst a second,
	// however many addresses send.
	window   time.Time
	inWindow int
}

// warnBurst is the most warnings about refused connections logged in one
// second, across every address.
const warnBurst = 10

func newBoundedListener(ln net.Listener, perAddr, all int, log *slog.Logger) *boundedListener {
	return &boundedListener{Listener: ln, perAddr: perAddr, all: all, log: log, byIP: map[string]int{}, warned: map[string]time.Time{}}
}

// Accept returns the next connection that fits the bounds; one that does
// not is closed here and never reaches the HTTP server.
func (b *boundedListener) Accept() (net.Conn, error) {
	for {
		c, err := b.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c)
		if b.take(ip) {
			return &countedConn{Conn: c, b: b, ip: ip}, nil
		}
		c.Close()
	}
}

// take counts a connection from ip, or reports that it does not fit.
func (b *boundedListener) take(ip string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byIP[ip] >= b.perAddr || b.total >= b.all {
		b.warnLocked(ip)
		return false
	}
	b.byIP[ip]++
	b.total++
	return true
}

// warnLocked logs a refused connection: at most once a second for one
// address, and at most warnBurst times a second in all.
func (b *boundedListener) warnLocked(ip string) {
	now := time.Now()
	if last, ok := b.warned[ip]; ok && now.Sub(last) < time.Second {
		return
	}
	if now.Sub(b.window) >= time.Second {
		b.window, b.inWindow = now, 0
		if len(b.warned) > 1024 {
			clear(b.warned) // forgetting who was warned only allows one more line each
		}
	}
	if b.inWindow >= warnBurst {
		return
	}
	b.inWindow++
	b.warned[ip] = now
	b.log.Warn("web: closed a connection at accept: too many open", "remote", ip,
		"from_it", b.byIP[ip], "max_per_addr", b.perAddr, "in_all", b.total, "max_conns", b.all)
}

func (b *boundedListener) release(ip string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total--
	if b.byIP[ip]--; b.byIP[ip] <= 0 {
		delete(b.byIP, ip)
	}
}

func remoteIP(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String()
	}
	return host
}

// countedConn is an accepted connection that gives its place back when it
// closes, once.
type countedConn struct {
	net.Conn
	b    *boundedListener
	ip   string
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.b.release(c.ip) })
	return err
}
