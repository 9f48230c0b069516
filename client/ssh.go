package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the link to another host: OpenSSH as it is installed runs
// `acpmux-tui proxy` over there, and the same JSON-RPC lines travel through
// ssh's stdin and stdout. Nothing listens on a network port, and no option
// that weakens host-key checking is ever added.

// HostTimeout bounds the dial of a host: ssh's login and the remote
// server's hello (which may start that server).
const HostTimeout = 45 * time.Second

// Host is a configured other machine.
type Host struct {
	Name string
	config.HostConfig
}

// SSHArgs is the argv that runs remote (a shell command line) on the host:
// ssh [ssh_options] -T DEST -- remote.
func (h Host) SSHArgs(extra []string, remote string) []string {
	return h.sshArgv(extra, "-T", remote)
}

// sshArgv is ssh [ssh_options] [extra] TTY DEST -- remote, where tty is
// -T (no terminal over there) or -t (one).
func (h Host) sshArgv(extra []string, tty, remote string) []string {
	args := []string{"ssh"}
	args = append(args, h.SSHOptions...)
	args = append(args, extra...)
	return append(args, tty, h.SSH, "--", remote)
}

// RemoteLine is the shell command line run on the host for the
// acpmux-tui subcommand args: its home as ACPMUX_HOME (how every command
// picks its agent home) when the host names one, then its command.
func (h Host) RemoteLine(args ...string) string {
	var b strings.Builder
	if h.Home != "" {
		b.WriteString("ACPMUX_HOME=" + ShellWord(h.Home) + " ")
	}
	b.WriteString(ShellWord(h.RemoteCommand()))
	for _, a := range args {
		b.WriteString(" " + ShellWord(a))
	}
	return b.String()
}

// ShellWord quotes s for a POSIX shell, keeping a leading ~ or ~/ as the
// remote user's home ("$HOME").
func ShellWord(s string) string {
	switch {
	case s == "~":
		return `"$HOME"`
	case strings.HasPrefix(s, "~/"):
		return `"$HOME"/` + quote(s[2:])
	}
	return quote(s)
}

func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// InstallHint is what to run to put this acpmux-tui on the host.
func (h Host) InstallHint() string {
	return "install it with: acpmux-tui hosts install " + h.Name
}

// DialHost runs `ssh ... COMMAND proxy` for the host and returns a
// connection over it once the remote server has answered hello with this
// build's protocol. Every string the host sends on it is cleaned as it is
// read (cleanFromHost), and so is what ssh says on its stderr. First ssh
// itself is asked whether the host's ssh_options keep host-key checking on
// (config.HostConfig.CheckSSH); they must. When it cannot, the error says
// why in the user's terms: ssh's own reason, acpmux-tui missing over
// there, or another version of the protocol, with how to install this one.
func DialHost(ctx context.Context, h Host, extraSSH ...string) (*Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, HostTimeout)
	defer cancel()
	if err := h.CheckSSH(ctx); err != nil {
		return nil, fmt.Errorf("host %s: %w", h.Name, err)
	}
	link, err := startLink(h, extraSSH)
	if err != nil {
		return nil, err
	}
	c := newConn(link)
	hello, err := c.Hello(ctx)
	if err != nil {
		c.Close()
		return nil, link.explain(err)
	}
	if hello.Protocol != proto.ProtocolVersion {
		c.Close()
		return nil, fmt.Errorf("host %s runs acpmux-tui %s, which speaks protocol %d; this one speaks %d: %s",
			h.Name, hello.Version, hello.Protocol, proto.ProtocolVersion, h.InstallHint())
	}
	// The link is slower than a socket: the remote server bounds what it
	// sends this connection's watcher (a server without the method sends
	// unbounded, as before).
	err = c.Call(ctx, proto.MethodBudget, proto.BudgetParams{BytesPerSecond: h.BudgetOrDefault()}, nil)
	var rpcErr *RPCError
	if err != nil && !(errors.As(err, &rpcErr) && rpcErr.Code == proto.CodeMethodNotFound) {
		c.Close()
		return nil, link.explain(fmt.Errorf("set the link's budget: %w", err))
	}
	return c, nil
}

// sshLink is a net.Conn over an ssh process's stdin and stdout.
type sshLink struct {
	host Host
	cmd  *exec.Cmd
	w    *os.File // ssh's stdin
	r    *os.File // ssh's stdout

	stderr *boundedBuffer
	exited chan struct{}
	state  *os.ProcessState

	closeOnce sync.Once
}

// linkLogLevel has ssh say why a link ended. ssh tells a timeout ("Timeout,
// server … not responding"), a connection closed or reset, at its INFO
// level; a config that hushes it (LogLevel ERROR or QUIET, often set
// against warnings) makes it exit 255 saying nothing. Its stderr on a link
// is only read to say why the link ended, so INFO is asked for; ssh keeps
// the first value it reads, so a LogLevel in ssh_options still wins.
var linkLogLevel = []string{"-o", "LogLevel=INFO"}

func startLink(h Host, extra []string) (*sshLink, error) {
	argv := h.SSHArgs(append(slices.Clone(extra), linkLogLevel...), h.RemoteLine("proxy"))
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("link to host %s: %w", h.Name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("link to host %s: %w", h.Name, err)
	}
	l := &sshLink{host: h, w: inW, r: outR, stderr: &boundedBuffer{max: 16 << 10}, exited: make(chan struct{})}
	l.cmd = exec.Command(argv[0], argv[1:]...)
	l.cmd.Stdin, l.cmd.Stdout, l.cmd.Stderr = inR, outW, l.stderr
	// Its own process group: a ctrl+c in the terminal reaches acpmux-tui,
	// which closes the link, not ssh behind its back.
	l.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = l.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("link to host %s: run ssh: %w", h.Name, err)
	}
	go func() {
		l.cmd.Wait()
		l.state = l.cmd.ProcessState
		close(l.exited)
	}()
	return l, nil
}

// Pid is the ssh process's pid.
func (l *sshLink) Pid() int { return l.cmd.Process.Pid }

// explain turns a link that ended into what happened over there.
func (l *sshLink) explain(callErr error) error {
	select {
	case <-l.exited:
	case <-time.After(5 * time.Second):
		return fmt.Errorf("host %s (%s) does not answer: %w", l.host.Name, l.host.SSH, callErr)
	}
	return l.ended()
}

// ended says why the ssh process ended; call after l.exited.
func (l *sshLink) ended() error { return sshEnded(l.host, l.state, l.stderr.String(), "proxy") }

// sshKilled is the signal that killed an ssh process, or 0.
func sshKilled(state *os.ProcessState) syscall.Signal {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

// sshEnded says why an ssh process that ran the acpmux-tui subcommand sub
// on host h ended, given what it said on its stderr.
func sshEnded(h Host, state *os.ProcessState, stderr, sub string) error {
	code := state.ExitCode()
	// What ssh said is partly what the host said (its login banner,
	// the remote command's errors): cleaned as its answers are.
	said := lastLines(plaintext.Foreign(stderr))
	if sig := sshKilled(state); sig != 0 {
		return fmt.Errorf("ssh was killed (%v)", sig)
	}
	switch {
	case code == 127 || strings.Contains(said, "command not found") || strings.Contains(said, "No such file or directory") && strings.Contains(said, h.RemoteCommand()):
		return fmt.Errorf("host %s has no acpmux-tui (ssh %s ran %q: %s); %s", h.Name, h.SSH, h.RemoteCommand(), orExit(said, code), h.InstallHint())
	case code == 126:
		return fmt.Errorf("host %s: %q cannot be run there (%s); %s", h.Name, h.RemoteCommand(), orExit(said, code), h.InstallHint())
	case code == 255:
		return fmt.Errorf("ssh to host %s (%s) failed: %s", h.Name, h.SSH, orExit(said, code))
	}
	return fmt.Errorf("host %s: acpmux-tui %s ended: %s", h.Name, sub, orExit(said, code))
}

// orExit is what ssh said, else its exit status: for 255, ssh's own
// failure, said as such.
func orExit(said string, code int) string {
	switch {
	case said != "":
		return said
	case code == 255:
		return "ssh exited with status 255 without saying why (ssh_options may quiet it: LogLevel, -q)"
	}
	return fmt.Sprintf("exit status %d", code)
}

// lastLines keeps the last few lines of what ssh said, on one line.
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	for i := range lines {
		// "…not responding." reads as part of a longer line.
		lines[i] = strings.TrimSuffix(strings.TrimSpace(lines[i]), ".")
	}
	return strings.Join(lines, "; ")
}

func (l *sshLink) Read(p []byte) (int, error)  { return l.r.Read(p) }
func (l *sshLink) Write(p []byte) (int, error) { return l.w.Write(p) }

// Close ends the link: ssh's stdin is closed (the remote proxy ends), and
// ssh is killed should it not end by itself soon after.
func (l *sshLink) Close() error {
	l.closeOnce.Do(func() {
		l.w.Close()
		select {
		case <-l.exited:
		case <-time.After(2 * time.Second):
			syscall.Kill(-l.cmd.Process.Pid, syscall.SIGTERM)
			<-l.exited
		}
		l.r.Close()
	})
	return nil
}

func (l *sshLink) LocalAddr() net.Addr  { return sshAddr("local") }
func (l *sshLink) RemoteAddr() net.Addr { return sshAddr(l.host.Name) }
func (l *sshLink) SetDeadline(t time.Time) error {
	l.r.SetReadDeadline(t)
	return l.w.SetWriteDeadline(t)
}
func (l *sshLink) SetReadDeadline(t time.Time) error  { return l.r.SetReadDeadline(t) }
func (l *sshLink) SetWriteDeadline(t time.Time) error { return l.w.SetWriteDeadline(t) }

type sshAddr string

func (a sshAddr) Network() string { return "ssh" }
func (a sshAddr) String() string  { return string(a) }

// boundedBuffer keeps the last max bytes written to it.
type boundedBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - b.max; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}

func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// LinkError says why a host link that was up has ended (the ssh process
// killed, the network cut): call it once the connection is done.
func LinkError(c *Conn) error {
	l, ok := c.nc.(*sshLink)
	if !ok {
		return errors.New("the server closed the connection")
	}
	select {
	case <-l.exited:
		return fmt.Errorf("the link to host %s is down: %w", l.host.Name, l.ended())
	case <-time.After(2 * time.Second):
		return fmt.Errorf("the link to host %s is down", l.host.Name)
	}
}

// LinkPid is the pid of the ssh process behind a host connection, or 0.
func LinkPid(c *Conn) int {
	if l, ok := c.nc.(*sshLink); ok {
		return l.Pid()
	}
	return 0
}
