package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

// proxyPids are the far side's `acpmux-tui proxy` processes of the rig:
// the binary run with proxy, in the rig's remote agent home.
func (r *hostRig) proxyPids() []int {
	return pidsWhere(func(_ []byte, args [][]byte, environ func() []byte) bool {
		return len(args) == 2 && string(args[0]) == binary && string(args[1]) == "proxy" && bytes.Contains(environ(), []byte("ACPMUX_HOME="+r.remoteHome+"\x00"))
	})
}

// TestHostServerKilledUnderAHandedOverLink: the far side's proxy hands its
// server ssh's stdin and stdout and only waits; killed with -9, the server
// takes them with it, the proxy ends, the link says it is down, and no
// proxy is left behind. A link made again reaches a new server.
func TestHostServerKilledUnderAHandedOverLink(t *testing.T) {
	r := newHostRig(t)
	c, err := client.DialHost(context.Background(), r.host())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var hello proto.HelloResult
	if err := c.Call(context.Background(), proto.MethodHello, struct{}{}, &hello); err != nil || hello.Pid <= 0 {
		t.Fatalf("hello over the link: %+v, %v", hello, err)
	}
	var proxies []int
	wait.Until(t, "the far side's proxy", func() bool { proxies = r.proxyPids(); return len(proxies) == 1 })
	// The proxy handed its stdio over: the server holds ssh's pipes.
	if n := pipesOf(t, hello.Pid); n < 2 {
		t.Fatalf("the far server holds %d pipes: the proxy's stdio was not handed over", n)
	}
	if err := syscall.Kill(hello.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.Done()
	wait.Until(t, "the proxy gone with its server", func() bool { return len(r.proxyPids()) == 0 })
	if err := c.Call(context.Background(), proto.MethodList, struct{}{}, nil); err == nil {
		t.Fatal("a call over the dead link succeeded")
	}
	again, err := client.DialHost(context.Background(), r.host())
	if err != nil {
		t.Fatalf("a link made again: %v", err)
	}
	defer again.Close()
	var second proto.HelloResult
	if err := again.Call(context.Background(), proto.MethodHello, struct{}{}, &second); err != nil || second.Pid == hello.Pid {
		t.Fatalf("hello over the new link: %+v, %v", second, err)
	}
}

// pipesOf counts the pipes process pid holds open.
func pipesOf(t *testing.T, pid int) int {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && bytes.HasPrefix([]byte(target), []byte("pipe:")) {
			n++
		}
	}
	return n
}
