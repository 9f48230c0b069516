package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
)

// cmdProxy is `proxy`: stdin and stdout bridged to this agent home's
// server socket, the server started when none answers. It is what another
// host's acpmux-tui runs over ssh (`ssh -T HOST -- acpmux-tui proxy`), so
// the lines on ssh's stdio are the socket's own: the socket keeps its mode
// and peer check, and nothing listens on a network port.
func cmdProxy(a *app, args []string) error {
	pos, err := parseInterleaved(newFlags(a, "proxy"), args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui proxy")
	}
	if err := a.open(); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("proxy: find acpmux-tui's own binary to start the server: %w", err)
	}
	// The first connection holds the server up (it ends when idle) while
	// the bridged one is dialed.
	held, err := client.EnsureServer(a.store.Home(), exe)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	nc, err := client.DialSocket(a.store.Home())
	held.Close()
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	defer nc.Close()
	handed, err := handOver(nc)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	if handed {
		// The server reads and writes our stdio itself; the socket
		// closes as the connection ends, or the server dies.
		_, _ = io.Copy(io.Discard, nc)
		return nil
	}
	up := make(chan error, 1)
	go func() {
		// stdin's end is the other side's: the server is told with a
		// half close, and answers what it has before it closes.
		_, err := io.Copy(nc, os.Stdin)
		nc.CloseWrite()
		up <- err
	}()
	_, err = io.Copy(os.Stdout, nc)
	if err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("proxy: %w", err)
	}
	return nil
}

// handOver hands the server this process's stdin and stdout
// (proto.MethodAdopt), so each line goes between ssh and the server with
// no copy through this process. It reports false when the server does not
// take them (one older than the hand-over): the lines are then copied.
func handOver(nc *net.UnixConn) (bool, error) {
	if _, _, err := nc.WriteMsgUnix([]byte(proto.AdoptLine), unix.UnixRights(int(os.Stdin.Fd()), int(os.Stdout.Fd())), nil); err != nil {
		return false, err
	}
	return adopted(nc)
}

// adopted reads the server's answer to a hand-over, a byte at a time:
// what follows it, when the server did not take the hand-over, is the
// caller's to read. It reports whether the server took it.
func adopted(nc *net.UnixConn) (bool, error) {
	var line []byte
	b := make([]byte, 1)
	for len(line) < 4096 {
		if _, err := nc.Read(b); err != nil {
			return false, err
		}
		if b[0] == '\n' {
			break
		}
		line = append(line, b[0])
	}
	return string(line)+"\n" == proto.AdoptedLine, nil
}
