package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
)

// The ssh row (issue 25's benchmarks): the remote link beside tmux over
// the same sshd, in the same run.
//
//   - keys: KEYS keys typed one at a time into `cat` on the far side,
//     through `acpmux-tui attach --host test ID` in a pty and through
//     `ssh -t test tmux attach` in a pty, a key of each in turn; each timed
//     from the write to the pty until this process's emulator shows it on
//     the last row; p50 and p99.
//   - flood: the flood file printed by a chat on the far side, shown here
//     through attach --host, and by a tmux window shown through ssh; the
//     time from the Enter that starts it until the line printed after it is
//     on the local screen.
//   - idle: the bytes that cross the link (both ways, counted by a relay
//     between ssh and sshd) over SECONDS with CHATS idle chats on the far
//     side, watched over client.DialHost as the TUI watches a host (one
//     chat shown), beside tmux over ssh with as many idle windows and a
//     client attached.

// sshFloodDone is what the flood's harness prints after the file.
const sshFloodDone = "FLOOD-DONE-MARK"

// sshFloodReady is what it prints before it waits for the Enter.
const sshFloodReady = "FLOOD-READY"

// sshFloodWait bounds one flood's run.
const sshFloodWait = 10 * time.Minute

// sshBench is `benchtool ssh BIN DIR TMUX FILE KEYS GAP_MS CHATS SECONDS`.
func sshBench(binary, dir, tmuxBin, file string, keys int, gap time.Duration, chats int, secs float64) error {
	emit("bench", "ssh")
	if err := sshKeys(binary, filepath.Join(dir, "keys"), tmuxBin, keys, gap); err != nil {
		return fmt.Errorf("ssh keys: %w", err)
	}
	if err := sshFlood(binary, filepath.Join(dir, "flood"), tmuxBin, file); err != nil {
		return fmt.Errorf("ssh flood: %w", err)
	}
	if err := sshIdle(binary, filepath.Join(dir, "idle"), tmuxBin, chats, secs); err != nil {
		return fmt.Errorf("ssh idle: %w", err)
	}
	return nil
}

// sshTmuxServer is a tmux server on a socket file of its own, on the far
// side (this machine), with its default config.
type sshTmuxServer struct {
	bin, sock string
}

func (t sshTmuxServer) run(args ...string) error {
	cmd := exec.Command(t.bin, append([]string{"-S", t.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = withoutEnv(os.Environ(), "TMUX")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// start starts the server with n windows running shellCommand (status off
// when statusOff: the keys and the flood read the last row).
func (t sshTmuxServer) start(n int, shellCommand string, statusOff bool) error {
	if err := t.run("new-session", "-d", "-s", "bench", "-x", strconv.Itoa(benchCols), "-y", strconv.Itoa(benchRows), shellCommand); err != nil {
		return err
	}
	if statusOff {
		if err := t.run("set", "-g", "status", "off"); err != nil {
			return err
		}
	}
	for i := 1; i < n; i++ {
		if err := t.run("new-window", "-d", "-t", "bench", shellCommand); err != nil {
			return err
		}
	}
	return nil
}

func (t sshTmuxServer) kill() {
	t.run("kill-server")
	os.Remove(t.sock)
}

func withoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// attachRemoteChat creates and starts a chat of that harness on the far
// side at the benchmark size, waits until it runs, and attaches to it
// over ssh (`attach --host`).
func (r *sshRig) attachRemoteChat(harnessName string) (*ptyClient, error) {
	ids, err := r.startRemoteChats(harnessName, 1)
	if err != nil {
		return nil, err
	}
	return r.attach(ids[0])
}

// attachRemoteChatDirect creates and starts a chat of that harness on the
// far side and runs `acpmux-tui attach ID` there under `ssh -t`, as tmux is
// run: the far attach lends the far server the terminal sshd gave it.
func (r *sshRig) attachRemoteChatDirect(harnessName string) (*ptyClient, error) {
	ids, err := r.startRemoteChats(harnessName, 1)
	if err != nil {
		return nil, err
	}
	h, err := r.host()
	if err != nil {
		return nil, err
	}
	args := append(slices.Clone(h.SSHOptions), "-t", h.SSH, "--", h.RemoteLine("attach", ids[0]))
	return startPtyClient(exec.Command("ssh", args...))
}

func (r *sshRig) startRemoteChats(harnessName string, n int) ([]string, error) {
	if r.remote.remote == nil {
		if err := r.remote.watch(); err != nil {
			return nil, err
		}
	}
	ids, err := r.remote.startChats(harnessName, n)
	if err != nil {
		return nil, err
	}
	return ids, r.remote.waitAll(ids, "running", func(id string) bool { return r.remote.remote.State(id).Status.Live() })
}

// warmUp types one key and an Enter through k, untimed: the link is up
// and the client draws.
func warmUp(k keyTyper) error {
	if err := k.typeKey('w', "w"); err != nil {
		return fmt.Errorf("warm-up key: %w", err)
	}
	return k.enter("w")
}

// keysReady is what the keys' chats print before cat reads: shown, the
// client is up and draws the chat.
const (
	keysReady        = "keys-ready"
	keysReadyCommand = "echo " + keysReady + "; exec /bin/cat"
)

func sshKeys(binary, dir, tmuxBin string, n int, gap time.Duration) error {
	r, err := newSSHRig(binary, dir, map[string]config.HarnessConfig{"bench-keys": {Command: "/bin/sh", Args: []string{"-c", keysReadyCommand}}})
	if err != nil {
		return err
	}
	defer r.close()
	ours, err := r.attachRemoteChat("bench-keys")
	if err != nil {
		return err
	}
	defer ours.close()
	direct, err := r.attachRemoteChatDirect("bench-keys")
	if err != nil {
		return err
	}
	defer direct.close()
	// The chats run: this process stops watching the far server, whose
	// news of each echo would wake it (the process that times the keys)
	// and take a core from the keys' way, which tmux's row does not pay.
	r.remote.unwatch()
	tm := sshTmuxServer{bin: tmuxBin, sock: filepath.Join(dir, "tmux.sock")}
	if err := tm.start(1, keysReadyCommand, true); err != nil {
		return err
	}
	defer tm.kill()
	theirs, err := r.sshTmux(tmuxBin, tm.sock, "bench")
	if err != nil {
		return err
	}
	defer theirs.close()
	// A key typed before a client is up would be echoed by a terminal
	// still cooked, here or over there, and reach the chat out of turn.
	for _, p := range []*ptyClient{ours, theirs, direct} {
		if err := p.waitScreen("showing "+keysReady, serverWait, func(text string) bool { return strings.Contains(text, keysReady) }); err != nil {
			return err
		}
	}
	if err := warmUp(ours); err != nil {
		return fmt.Errorf("attach --host: %w", err)
	}
	if err := warmUp(theirs); err != nil {
		return fmt.Errorf("tmux over ssh: %w", err)
	}
	if err := warmUp(direct); err != nil {
		return fmt.Errorf("attach over ssh -t: %w", err)
	}
	runs := []*keyRun{{k: ours}, {k: theirs}, {k: direct}}
	names := []string{"attach --host", "tmux over ssh", "attach over ssh -t"}
	for i := range n {
		for j := range runs {
			at := (i + j) % len(runs)
			if err := runs[at].step(i, gap); err != nil {
				return fmt.Errorf("%s: %w", names[at], err)
			}
		}
	}
	emit("keys", n)
	emit("gap_ms", float64(gap)/float64(time.Millisecond))
	emit("keys_ours_p50_ms", ms(percentile(runs[0].times, 0.50)))
	emit("keys_ours_p99_ms", ms(percentile(runs[0].times, 0.99)))
	emit("keys_tmux_p50_ms", ms(percentile(runs[1].times, 0.50)))
	emit("keys_tmux_p99_ms", ms(percentile(runs[1].times, 0.99)))
	emit("keys_direct_p50_ms", ms(percentile(runs[2].times, 0.50)))
	emit("keys_direct_p99_ms", ms(percentile(runs[2].times, 0.99)))
	return nil
}

// floodCommand is the flood's shell command: a line to say it waits, the
// Enter, the file, the line after it, then cat (the chat stays).
func floodCommand(file string) string {
	return "echo " + sshFloodReady + "; read go; cat " + client.ShellWord(file) + "; echo " + sshFloodDone + "; exec cat"
}

// timeFlood waits for the client to show the flood's first line, sends the
// Enter and times until the line after the file is on its last row.
func timeFlood(p *ptyClient) (time.Duration, error) {
	if err := p.waitScreen("showing "+sshFloodReady, serverWait, func(text string) bool { return lastRow(text) == sshFloodReady }); err != nil {
		return 0, err
	}
	begin := time.Now()
	if _, err := p.master.Write([]byte{'\r'}); err != nil {
		return 0, err
	}
	if err := p.waitScreen("showing "+sshFloodDone, sshFloodWait, func(text string) bool { return lastRow(text) == sshFloodDone }); err != nil {
		return 0, err
	}
	return time.Since(begin), nil
}

func sshFlood(binary, dir, tmuxBin, file string) error {
	file, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	cmdLine := floodCommand(file)
	r, err := newSSHRig(binary, dir, map[string]config.HarnessConfig{"bench-flood": {Command: "/bin/sh", Args: []string{"-c", cmdLine}}})
	if err != nil {
		return err
	}
	defer r.close()
	ours, err := r.attachRemoteChat("bench-flood")
	if err != nil {
		return err
	}
	oursTime, err := timeFlood(ours)
	ours.close()
	if err != nil {
		return fmt.Errorf("attach --host: %w", err)
	}
	tm := sshTmuxServer{bin: tmuxBin, sock: filepath.Join(dir, "tmux.sock")}
	if err := tm.start(1, cmdLine, true); err != nil {
		return err
	}
	defer tm.kill()
	theirs, err := r.sshTmux(tmuxBin, tm.sock, "bench")
	if err != nil {
		return err
	}
	tmuxTime, err := timeFlood(theirs)
	theirs.close()
	if err != nil {
		return fmt.Errorf("tmux over ssh: %w", err)
	}
	emit("flood_bytes", st.Size())
	emit("flood_ours_seconds", oursTime.Seconds())
	emit("flood_tmux_seconds", tmuxTime.Seconds())
	return nil
}

// sshSettle is how long a link is left after it is up before its bytes are
// counted: the first frames and the login's last words are not idle.
const sshSettle = 2 * time.Second

func sshIdle(binary, dir, tmuxBin string, n int, secs float64) error {
	r, err := newSSHRig(binary, dir, map[string]config.HarnessConfig{"bench-idle": idleHarness})
	if err != nil {
		return err
	}
	defer r.close()
	relayOpts, err := r.useRelay()
	if err != nil {
		return err
	}
	if err := r.writeLocalConfig(relayOpts); err != nil {
		return err
	}
	ids, err := r.startRemoteChats("bench-idle", n)
	if err != nil {
		return err
	}
	r.remote.unwatch()
	host, err := r.host()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), serverWait)
	conn, err := client.DialHost(ctx, host)
	cancel()
	if err != nil {
		return err
	}
	rem, err := client.NewRemote(conn)
	if err != nil {
		return err
	}
	if r.relay.accepted.Load() != 1 {
		rem.Close()
		return fmt.Errorf("the link's login did not cross the relay: its bytes would not be counted")
	}
	rem.Show(ids[0])
	deadline := time.Now().Add(serverWait)
	for _, id := range ids {
		for !rem.State(id).Status.Live() || !strings.Contains(rem.Render(id, 0), idlePrompt) {
			if time.Now().After(deadline) {
				rem.Close()
				return fmt.Errorf("chat %s not seen running at its prompt over the link", id)
			}
			select {
			case <-rem.Changes():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	time.Sleep(sshSettle)
	before := r.relay.bytes()
	time.Sleep(time.Duration(secs * float64(time.Second)))
	ours := r.relay.bytes() - before
	rem.Close()

	tm := sshTmuxServer{bin: tmuxBin, sock: filepath.Join(dir, "tmux.sock")}
	if err := tm.start(n, client.ShellWord(idleHarness.Command)+" -c "+client.ShellWord(idleHarness.Args[1]), false); err != nil {
		return err
	}
	defer tm.kill()
	theirs, err := r.sshTmux(tmuxBin, tm.sock, "bench", relayOpts...)
	if err != nil {
		return err
	}
	defer theirs.close()
	if err := theirs.waitScreen("showing "+idlePrompt, serverWait, func(text string) bool { return strings.Contains(text, idlePrompt) }); err != nil {
		return err
	}
	time.Sleep(sshSettle)
	if r.relay.accepted.Load() != 2 {
		return fmt.Errorf("tmux's ssh did not cross the relay: its bytes would not be counted")
	}
	before = r.relay.bytes()
	time.Sleep(time.Duration(secs * float64(time.Second)))
	tmuxBytes := r.relay.bytes() - before
	emit("idle_chats", n)
	emit("idle_seconds", secs)
	emit("idle_ours_bytes", ours)
	emit("idle_tmux_bytes", tmuxBytes)
	return nil
}
