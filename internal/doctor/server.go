package doctor

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file checks the agent home, its server, its socket and the web
// listener. A server that does not run is no problem: a client starts one
// when it needs it. Asking one never starts one.

// serverFound is the server checks and the pid of the server that
// answered (0: none).
type serverFound struct {
	checks []Check
	pid    int
}

func checkServer(ctx context.Context, opt Options, home string) serverFound {
	var f serverFound
	f.checks = append(f.checks, checkHome(home))
	f.checks = append(f.checks, checkSocket(home))
	c := Check{Name: "server", Status: StatusOK}
	conn, err := client.Dial(home)
	switch {
	case errors.Is(err, client.ErrNoServer):
		c.Detail = "not running (a client starts one when it needs it)"
		f.checks = append(f.checks, c)
		return f
	case err != nil:
		c.Status, c.Detail = StatusFail, err.Error()
		c.Fix = "see the server's log, " + config.Paths{Home: home}.Log()
		f.checks = append(f.checks, c)
		return f
	}
	defer conn.Close()
	hctx, cancel := context.WithTimeout(ctx, opt.ServerTimeout)
	defer cancel()
	hello, err := conn.Hello(hctx)
	if err != nil {
		c.Status = StatusFail
		c.Detail = fmt.Sprintf("does not answer hello within %v: %v", opt.ServerTimeout, err)
		c.Fix = "acpmux-tui kill-server; if that does not end it, kill the pid in " + filepath.Join(home, proto.LockName)
		if pid := proto.LockHolder(home); pid > 0 {
			c.Fix = fmt.Sprintf("acpmux-tui kill-server; if that does not end it, kill %d", pid)
		}
		f.checks = append(f.checks, c)
		return f
	}
	f.pid = hello.Pid
	c.Detail = fmt.Sprintf("running: pid %d, acpmux-tui %s", hello.Pid, hello.Version)
	if up, ok := uptime(hello.Pid); ok {
		c.Detail += ", up " + up.String()
	}
	switch {
	case hello.Protocol != proto.ProtocolVersion:
		c.Status = StatusFail
		c.Detail += fmt.Sprintf("; it speaks protocol %d, this acpmux-tui %d", hello.Protocol, proto.ProtocolVersion)
		c.Fix = "acpmux-tui kill-server, then start the chats again with this acpmux-tui"
	case opt.Version != "" && hello.Version != opt.Version:
		c.Status = StatusWarn
		c.Detail += "; this acpmux-tui is " + opt.Version
		c.Fix = "acpmux-tui kill-server to run this version (the next client starts it)"
	}
	f.checks = append(f.checks, c)
	return f
}

// checkHome looks at the agent home: a folder, mode 0700.
func checkHome(home string) Check {
	c := Check{Name: "agent home", Status: StatusOK}
	fi, err := os.Stat(home)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Detail = home + ": not made yet (the first chat makes it)"
	case err != nil:
		c.Status, c.Detail = StatusFail, err.Error()
	case !fi.IsDir():
		c.Status, c.Detail = StatusFail, home+": not a folder"
		c.Fix = "move it away, or set ACPMUX_HOME to a folder"
	case fi.Mode().Perm() != 0o700:
		c.Status = StatusWarn
		c.Detail = fmt.Sprintf("%s: mode %04o, so other users may look into it", home, fi.Mode().Perm())
		c.Fix = "chmod 700 " + home + " (the server does it when it starts)"
	default:
		c.Detail = home + ": mode 0700"
	}
	return c
}

// checkSocket looks at the server's socket: a socket, mode 0600.
func checkSocket(home string) Check {
	path := proto.SocketPath(home)
	c := Check{Name: "socket", Status: StatusOK}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Detail = path + ": none (no server)"
	case err != nil:
		c.Status, c.Detail = StatusFail, err.Error()
	case fi.Mode().Type() != fs.ModeSocket:
		c.Status, c.Detail = StatusFail, path+": not a socket, so no server can listen there"
		c.Fix = "move it away"
	case fi.Mode().Perm() != 0o600:
		c.Status = StatusFail
		c.Detail = fmt.Sprintf("%s: mode %04o, not 0600", path, fi.Mode().Perm())
		c.Fix = "chmod 600 " + path + " (a server made by acpmux-tui, or by its systemd unit, makes it 0600)"
	default:
		c.Detail = path + ": mode 0600"
	}
	return c
}

// uptime is how long the process has run, from /proc.
func uptime(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields are counted after its last ")".
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 {
		return 0, false
	}
	start, err := strconv.ParseFloat(fields[19], 64) // field 22: starttime, in clock ticks
	if err != nil {
		return 0, false
	}
	u, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, false
	}
	up, err := strconv.ParseFloat(strings.Fields(string(u))[0], 64)
	if err != nil {
		return 0, false
	}
	const clockTicks = 100 // USER_HZ, the same on every Linux architecture Go builds for
	d := time.Duration((up - start/clockTicks) * float64(time.Second))
	if d < 0 {
		return 0, false
	}
	return d.Round(time.Second), true
}

// checkWeb says whether the server's web listener is open, and where: the
// TCP sockets the server process listens on (its descriptors, matched in
// /proc/net/tcp and tcp6), read without asking the server, which would
// open one.
func checkWeb(cfg *config.Config, pid int, home string) Check {
	c := Check{Name: "web", Status: StatusOK}
	if pid == 0 {
		c.Detail = "no server, so no listener (acpmux-tui web opens one)"
		if cfg.Web.Listen != "" {
			c.Detail = fmt.Sprintf("no server; it opens [web] listen = %q when it starts", cfg.Web.Listen)
		}
		return c
	}
	addrs, err := listening(pid)
	switch {
	case err != nil:
		c.Status, c.Detail = StatusWarn, "cannot tell: "+err.Error()
	case len(addrs) == 0 && cfg.Web.Listen != "":
		c.Status = StatusWarn
		c.Detail = fmt.Sprintf("not open, though the config has [web] listen = %q", cfg.Web.Listen)
		c.Fix = "see why in the server's log, " + config.Paths{Home: home}.Log() + ", or run acpmux-tui web"
	case len(addrs) == 0:
		c.Detail = "not open (acpmux-tui web opens it)"
	default:
		c.Detail = "open on " + strings.Join(addrs, ", ")
	}
	if fi, err := os.Stat(filepath.Join(home, proto.WebTokenName)); err == nil && fi.Mode().Perm() != 0o600 {
		c.Status = StatusFail
		c.Detail += fmt.Sprintf("; its token file has mode %04o, not 0600", fi.Mode().Perm())
		c.Fix = "acpmux-tui web --new-token (and chmod 600 " + filepath.Join(home, proto.WebTokenName) + ")"
	}
	return c
}

// listening returns the addresses of the TCP sockets process pid listens
// on.
func listening(pid int) ([]string, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		addrs, err := listenersIn(table, inodes)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append(out, addrs...)
	}
	return out, nil
}

// tcpListen is the state LISTEN in /proc/net/tcp.
const tcpListen = "0A"

// listenersIn reads a /proc/net/tcp table: the local addresses of the
// listening sockets among inodes.
func listenersIn(table string, inodes map[string]bool) ([]string, error) {
	f, err := os.Open(table)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Scan() // the heading
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != tcpListen || !inodes[fields[9]] {
			continue
		}
		if a, ok := procAddr(fields[1]); ok {
			out = append(out, a)
		}
	}
	return out, sc.Err()
}

// procAddr reads "0100007F:1F90" (each 32-bit word of the address as the
// kernel printed it: a number in this machine's byte order, then the
// port) as "127.0.0.1:8080".
func procAddr(s string) (string, bool) {
	h, p, ok := strings.Cut(s, ":")
	port, perr := strconv.ParseUint(p, 16, 16)
	if !ok || perr != nil || len(h) == 0 || len(h)%8 != 0 {
		return "", false
	}
	ip := make(net.IP, len(h)/2)
	for i := 0; i < len(h); i += 8 {
		w, err := strconv.ParseUint(h[i:i+8], 16, 32)
		if err != nil {
			return "", false
		}
		binary.NativeEndian.PutUint32(ip[i/2:], uint32(w))
	}
	return net.JoinHostPort(ip.String(), strconv.FormatUint(port, 10)), true
}
