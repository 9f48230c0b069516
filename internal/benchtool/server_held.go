package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// The held benchmark: the `_acpmux/hello` round trip of a fresh client
// (connect, hello, close, as `ls` and a harness's hook each do) while two
// other processes hold connections open, each made with a hello and then
// idle: more than the server's 512 slots between them. The same round trip
// with nothing held is measured beside it, in turn, a call of each after
// the other.

// heldBench holds held connections from each of two processes and times n
// fresh hellos with and without them; it prints p50 and p99 of each, in
// milliseconds, and how many connections the holders kept.
func heldBench(binary, home string, held, n int) error {
	r, err := newServerRig(binary, home, map[string]config.HarnessConfig{"bench-held": {Command: "/bin/cat"}})
	if err != nil {
		return err
	}
	defer r.close()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	sock := proto.SocketPath(r.home)
	hello := func() (time.Duration, error) {
		start := time.Now()
		c, err := client.Dial(r.home)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.Hello(ctx); err != nil {
			return 0, err
		}
		return time.Since(start), nil
	}
	var idle []time.Duration
	for range n {
		d, err := hello()
		if err != nil {
			return fmt.Errorf("hello with nothing held: %w", err)
		}
		idle = append(idle, d)
	}
	kept := 0
	for range 2 {
		h := exec.Command(self, "hold", sock, strconv.Itoa(held))
		h.Stderr = os.Stderr
		in, err := h.StdinPipe()
		if err != nil {
			return err
		}
		out, err := h.StdoutPipe()
		if err != nil {
			return err
		}
		if err := h.Start(); err != nil {
			return err
		}
		defer func() { in.Close(); h.Wait() }()
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			return fmt.Errorf("a holder did not say what it holds: %w", err)
		}
		k, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "answered ")))
		if err != nil {
			return fmt.Errorf("a holder said %q", line)
		}
		kept += k
	}
	var busy []time.Duration
	for range n {
		d, err := hello()
		if err != nil {
			return fmt.Errorf("hello while %d connections are held: %w", 2*held, err)
		}
		busy = append(busy, d)
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d.Microseconds())/1000) }
	fmt.Printf("held=%d\nkept=%d\n", 2*held, kept)
	fmt.Printf("idle_p50_ms=%s\nidle_p99_ms=%s\n", ms(percentile(idle, 0.50)), ms(percentile(idle, 0.99)))
	fmt.Printf("held_p50_ms=%s\nheld_p99_ms=%s\n", ms(percentile(busy, 0.50)), ms(percentile(busy, 0.99)))
	return nil
}

// holdConnections is `benchtool hold SOCKET N`: it opens N connections,
// makes a hello on each, prints how many were answered, and holds them
// until its stdin closes.
func holdConnections(sock string, n int) error {
	var conns []net.Conn
	answered := 0
	for range n {
		nc, err := net.Dial("unix", sock)
		if err != nil {
			continue
		}
		conns = append(conns, nc)
		nc.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprint(nc, `{"jsonrpc":"2.0","id":1,"method":"_acpmux/hello"}`+"\n")
		if line, err := bufio.NewReader(nc).ReadString('\n'); err == nil && strings.Contains(line, `"result"`) {
			answered++
		}
		nc.SetDeadline(time.Time{})
	}
	fmt.Printf("answered %d\n", answered)
	io.Copy(io.Discard, os.Stdin)
	for _, nc := range conns {
		nc.Close()
	}
	return nil
}
