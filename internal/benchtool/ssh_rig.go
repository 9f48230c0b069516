package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/testharness/sshd"
	"github.com/acpmux/acpmux-tui/screen"
	"github.com/creack/pty"
)

// This file is the rig of the ssh row: a real sshd on a loopback port
// (internal/testharness/sshd: host-key checking on, a known_hosts file of
// its own), behind it a server on a second agent home (the far side), and
// on this side a config naming it [host.test], so `acpmux-tui attach
// --host test ID` and client.DialHost reach it as a user's would. Beside
// it, tmux over the same sshd: `ssh -F CONFIG -t test tmux -S SOCK attach`.
// Both run on this machine, so the figures are the paths' own costs, not a
// network's.

// sshRig is the sshd, the far side's server and this side's config.
type sshRig struct {
	binary string
	sshd   *sshd.Server
	remote *serverRig // the far side's server, on sshd.Home
	// localHome and localConfig are this side's agent home and config.
	localHome, localConfig string
	command                string // the far side's acpmux-tui: a script naming its config
	relay                  *byteRelay
}

// newSSHRig starts sshd in dir and the far side's server with harnesses.
// When sshd cannot run here, the error wraps sshd.ErrUnavailable.
func newSSHRig(binary, dir string, harnesses map[string]config.HarnessConfig) (*sshRig, error) {
	bin, err := filepath.Abs(binary)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "sshd"), 0o700); err != nil {
		return nil, err
	}
	s, err := sshd.Start(filepath.Join(dir, "sshd"))
	if err != nil {
		return nil, err
	}
	r := &sshRig{binary: bin, sshd: s, localHome: filepath.Join(dir, "local"), localConfig: filepath.Join(dir, "local-config.toml"),
		command: filepath.Join(dir, "remote-acpmux-tui")}
	if r.remote, err = newServerRig(bin, s.Home, harnesses); err != nil {
		s.Stop()
		return nil, err
	}
	script := fmt.Sprintf("#!/bin/sh\nACPMUX_CONFIG=%s SHELL=/bin/sh exec %s \"$@\"\n",
		client.ShellWord(filepath.Join(s.Home, "bench-config.toml")), client.ShellWord(bin))
	if err := os.WriteFile(r.command, []byte(script), 0o755); err != nil {
		r.close()
		return nil, err
	}
	if err := os.MkdirAll(r.localHome, 0o700); err != nil {
		r.close()
		return nil, err
	}
	if err := r.writeLocalConfig(nil); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// writeLocalConfig writes this side's config: [host.test] with more ssh
// options.
func (r *sshRig) writeLocalConfig(moreSSH []string) error {
	opts := []string{"-F", r.sshd.Config}
	opts = append(opts, moreSSH...)
	q := make([]string, len(opts))
	for i, o := range opts {
		q[i] = strconv.Quote(o)
	}
	conf := fmt.Sprintf("[host.test]\nssh = %q\nssh_options = [%s]\nhome = %q\ncommand = %q\n",
		sshd.Alias, strings.Join(q, ", "), r.sshd.Home, r.command)
	if err := os.WriteFile(r.localConfig, []byte(conf), 0o644); err != nil {
		return err
	}
	_, err := config.Load(r.localConfig)
	return err
}

// host is [host.test] as this side's config has it.
func (r *sshRig) host() (client.Host, error) {
	cfg, err := config.Load(r.localConfig)
	if err != nil {
		return client.Host{}, err
	}
	return client.Host{Name: "test", HostConfig: cfg.Host["test"]}, nil
}

// localEnv is the environment of this side's acpmux-tui.
func (r *sshRig) localEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ACPMUX_HOME=") && !strings.HasPrefix(kv, "ACPMUX_CONFIG=") {
			env = append(env, kv)
		}
	}
	return append(env, "ACPMUX_HOME="+r.localHome, "ACPMUX_CONFIG="+r.localConfig)
}

// attach starts `acpmux-tui attach --host test ID` in a 160x45 pty.
func (r *sshRig) attach(id string) (*ptyClient, error) {
	cmd := exec.Command(r.binary, "attach", "--host", "test", id)
	cmd.Env = r.localEnv()
	return startPtyClient(cmd)
}

// sshTmux starts `ssh -F CONFIG [more] -t test TMUX -S SOCK attach -t
// SESSION` in a 160x45 pty.
func (r *sshRig) sshTmux(tmuxBin, sock, session string, more ...string) (*ptyClient, error) {
	args := append([]string{"-F", r.sshd.Config}, more...)
	args = append(args, "-t", sshd.Alias, "--", client.ShellWord(tmuxBin)+" -S "+client.ShellWord(sock)+" attach -t "+session)
	return startPtyClient(exec.Command("ssh", args...))
}

// useRelay puts a byte-counting relay between ssh and sshd: its port is
// given to ssh with -o Port (the rig's known_hosts learns the same host
// key under that port, so host-key checking stays on), and returned as
// the ssh options to pass.
func (r *sshRig) useRelay() ([]string, error) {
	rl, err := startRelay(r.sshd.Port)
	if err != nil {
		return nil, err
	}
	r.relay = rl
	known := filepath.Join(r.sshd.Dir, "known_hosts")
	data, err := os.ReadFile(known)
	if err != nil {
		return nil, err
	}
	_, key, ok := strings.Cut(strings.TrimSpace(string(data)), " ")
	if !ok {
		return nil, fmt.Errorf("%s: no host key line", known)
	}
	f, err := os.OpenFile(known, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	_, err = fmt.Fprintf(f, "[127.0.0.1]:%d %s\n", rl.port, key)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return []string{"-o", "Port=" + strconv.Itoa(rl.port)}, err
}

// close ends the far side's server, the relay and sshd.
func (r *sshRig) close() {
	if r.remote != nil {
		r.remote.close()
	}
	if r.relay != nil {
		r.relay.close()
	}
	r.sshd.Stop()
}

// byteRelay forwards loopback TCP connections to sshd's port and counts
// the bytes each way: what the link costs, encryption and all.
type byteRelay struct {
	l        net.Listener
	port     int
	up, down atomic.Int64 // to sshd, from sshd
	accepted atomic.Int64 // connections relayed
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

func startRelay(to int) (*byteRelay, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	rl := &byteRelay{l: l, port: l.Addr().(*net.TCPAddr).Port}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(to)))
			if err != nil {
				c.Close()
				continue
			}
			rl.accepted.Add(1)
			rl.mu.Lock()
			rl.conns = append(rl.conns, c, s)
			rl.mu.Unlock()
			rl.wg.Add(2)
			go rl.pipe(s, c, &rl.up)
			go rl.pipe(c, s, &rl.down)
		}
	}()
	return rl, nil
}

func (rl *byteRelay) pipe(dst, src net.Conn, n *atomic.Int64) {
	defer rl.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		k, err := src.Read(buf)
		if k > 0 {
			n.Add(int64(k))
			if _, werr := dst.Write(buf[:k]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
}

// bytes is what crossed the relay so far, both ways.
func (rl *byteRelay) bytes() int64 { return rl.up.Load() + rl.down.Load() }

func (rl *byteRelay) close() {
	rl.l.Close()
	rl.mu.Lock()
	for _, c := range rl.conns {
		c.Close()
	}
	rl.mu.Unlock()
	rl.wg.Wait()
}

// ptyClient is a terminal client (attach, or ssh running tmux attach) in
// a 160x45 pty whose output this process's emulator draws, answering its
// queries as a terminal does; the screen is what its user would see.
type ptyClient struct {
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	scr    *screen.Screen
	read   int64
	change chan struct{} // a token when output came
	done   chan struct{}
}

func startPtyClient(cmd *exec.Cmd) (*ptyClient, error) {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "TERM=xterm-256color")
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: benchCols, Rows: benchRows})
	if err != nil {
		return nil, fmt.Errorf("start %s in a pty: %w", cmd, err)
	}
	p := &ptyClient{cmd: cmd, master: master, scr: screen.New(benchCols, benchRows, 0),
		change: make(chan struct{}, 1), done: make(chan struct{})}
	p.scr.SetReplyFunc(func(b []byte) { master.Write(b) })
	go p.readLoop()
	return p, nil
}

func (p *ptyClient) readLoop() {
	defer close(p.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := p.master.Read(buf)
		if n > 0 {
			p.mu.Lock()
			p.scr.Write(buf[:n])
			p.read += int64(n)
			p.mu.Unlock()
			select {
			case p.change <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// screenText is the screen as rendered now.
func (p *ptyClient) screenText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scr.Render(0)
}

// waitScreen waits until shown holds for the screen, or fails after wait
// (or when the client has ended) with the screen's last row.
func (p *ptyClient) waitScreen(what string, wait time.Duration, shown func(text string) bool) error {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		text := p.screenText()
		if shown(text) {
			return nil
		}
		select {
		case <-p.change:
		case <-p.done:
			if text := p.screenText(); shown(text) {
				return nil
			}
			return fmt.Errorf("%s: the client ended before %s; its screen ends with %q", p.cmd.Args[0], what, lastRow(p.screenText()))
		case <-deadline.C:
			return fmt.Errorf("%s: not %s after %s; the screen ends with %q", p.cmd.Args[0], what, wait, lastRow(p.screenText()))
		}
	}
}

// typeKey and enter make a ptyClient a keyTyper: a key has shown once the
// screen's last row is the line typed so far.
func (p *ptyClient) typeKey(key byte, line string) error {
	if _, err := p.master.Write([]byte{key}); err != nil {
		return err
	}
	return p.waitScreen(fmt.Sprintf("showing key %q", key), keyWait, func(text string) bool { return lastRow(text) == line })
}

func (p *ptyClient) enter(line string) error {
	if _, err := p.master.Write([]byte{'\r'}); err != nil {
		return err
	}
	return p.waitScreen("showing the line echoed", keyWait, func(text string) bool { return lineEchoed(plainRows(text), line) })
}

// close hangs the client up, as a closed terminal does, and reaps it.
func (p *ptyClient) close() {
	p.cmd.Process.Signal(syscall.SIGHUP)
	exited := make(chan struct{})
	go func() { p.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-exited
	}
	p.master.Close()
	<-p.done
}
