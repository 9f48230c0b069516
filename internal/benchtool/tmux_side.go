package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The rows of issue 26 that put a server and its TUI beside tmux with the
// same load: scale-100 (N chats each printing a line a second: CPU of
// server + TUI beside a tmux server with N such windows and a client
// attached), memory-10 and memory-100 (PSS of server + TUI with N idle
// chats beside tmux server + client with N idle windows) and
// first-frame-1000 (the TUI's first frame with N chats, cold and warm,
// beside `tmux attach` with N windows). Each prints ours, tmux's and the
// ratio. tmux's client runs in a 160x45 pty as the TUI does, its output
// read and thrown away.

// The shell command of tmux's idle windows: the chats' idleHarness
// (tmuxScaleCommand, tick.go, is the scale rows').
const tmuxIdleCommand = "printf '" + idlePrompt + " '; exec sleep 3600"

// tmuxStatusMark is what an attached tmux client's first frame shows: the
// status line's session name.
const tmuxStatusMark = "[bench]"

// tmuxBench is a tmux server with n windows and a client attached in a
// pty, settled as a tuiBench is.
type tmuxBench struct {
	t         tmuxServer
	client    *tuiProcess
	serverPid int
	settled   bool
}

// startTmuxBench starts a tmux server on socket with n windows running
// shellCommand, waits until every pane's last line satisfies ready,
// attaches a client in a pty and waits for its first frame, and waits
// until server and client have used at most settleCPU seconds of CPU over
// one second.
func startTmuxBench(tmux, socket string, n int, shellCommand string, ready func(last string) bool, settleCPU float64) (*tmuxBench, error) {
	b := &tmuxBench{t: tmuxServer{bin: tmux, socket: socket}}
	if err := b.setUp(n, shellCommand, ready, settleCPU); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// setUp does what startTmuxBench says.
func (b *tmuxBench) setUp(n int, shellCommand string, ready func(last string) bool, settleCPU float64) error {
	if err := b.t.startWindows(n, shellCommand); err != nil {
		return err
	}
	out, err := b.t.command("display-message", "-p", "#{pid}").Output()
	if err != nil {
		return fmt.Errorf("tmux display-message pid: %w", err)
	}
	if b.serverPid, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
		return fmt.Errorf("tmux server pid %q: %w", out, err)
	}
	if err := b.t.waitPanes(ready); err != nil {
		return err
	}
	if b.client, err = startInPty(b.t.command("attach-session", "-t", "bench"), tmuxStatusMark); err != nil {
		return err
	}
	if err := b.client.waitReady(); err != nil {
		return fmt.Errorf("tmux attach: %w", err)
	}
	b.settled, err = settle(settleCPU, b.serverPid, b.client.pid())
	return err
}

// close ends the client and the server.
func (b *tmuxBench) close() {
	if b.client != nil {
		b.client.close()
	}
	b.t.kill()
}

// waitPanes polls every pane of the server until its last non-blank line
// satisfies ready, or fails at serverWait naming a pane that does not.
func (t tmuxServer) waitPanes(ready func(last string) bool) error {
	out, err := t.command("list-panes", "-a", "-F", "#{pane_id}").Output()
	if err != nil {
		return fmt.Errorf("tmux list-panes: %w", err)
	}
	deadline := time.Now().Add(serverWait)
	for _, pane := range strings.Fields(string(out)) {
		for {
			screen, err := t.command("capture-pane", "-p", "-t", pane).Output()
			if err != nil {
				return fmt.Errorf("tmux capture-pane %s: %w", pane, err)
			}
			last := lastRow(string(screen))
			if ready(last) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("tmux pane %s: not ready after %s (last line %q)", pane, serverWait, last)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// tmuxPrinting and tmuxIdle are the ready checks of scale-100 and the
// memory rows: the pane printed a line, or shows the idle prompt.
func tmuxPrinting(last string) bool { return last != "" }
func tmuxIdle(last string) bool     { return strings.HasPrefix(last, idlePrompt) }

// scale100 is `benchtool scale-100 BIN HOME TMUX SOCKET N SECONDS`: a
// server with N chats each printing a line a second and the TUI showing
// them, and a tmux server with N windows printing the same and a client
// attached, both set up and settled, then the CPU of the four processes
// over the same SECONDS (so a busy moment of the machine falls on both):
// server-scale's lines (server and TUI apart), tmux_server_cpu_seconds,
// tmux_client_cpu_seconds, the percentages of a core and their ratio.
func scale100(bin, home, tmux, socket string, n int, secs float64) error {
	harness, err := scaleHarness()
	if err != nil {
		return err
	}
	command, err := tmuxScaleCommand()
	if err != nil {
		return err
	}
	b, err := startTUIBench(bin, home, harness, n, printing, 0.05)
	if err != nil {
		return err
	}
	defer b.close()
	tb, err := startTmuxBench(tmux, socket, n, command, tmuxPrinting, 0.05)
	if err != nil {
		return err
	}
	defer tb.close()
	ours0, theirs0 := b.tui.bytesRead(), tb.client.bytesRead()
	used, err := measureCPU(secs, b.r.pid, b.tui.pid(), tb.serverPid, tb.client.pid())
	if err != nil {
		return err
	}
	if err := b.r.checkLive(b.ids); err != nil {
		return err
	}
	if b.tui.bytesRead() == ours0 {
		return fmt.Errorf("the TUI drew nothing in %g s while its selected chat printed a line a second", secs)
	}
	if tb.client.bytesRead() == theirs0 {
		return fmt.Errorf("the tmux client drew nothing in %g s while its window printed a line a second", secs)
	}
	emit("bench", "scale-100")
	emitSetup(b)
	emit("held_seconds", secs)
	emit("server_cpu_seconds", used[0])
	emit("tui_cpu_seconds", used[1])
	emit("tui_output_bytes", b.tui.bytesRead()-ours0)
	emit("cpu_seconds", used[0]+used[1])
	emit("tmux_settled", tb.settled)
	emit("tmux_server_cpu_seconds", used[2])
	emit("tmux_client_cpu_seconds", used[3])
	ours, theirs := (used[0]+used[1])/secs*100, (used[2]+used[3])/secs*100
	emit("cpu_percent", ours)
	emit("tmux_cpu_percent", theirs)
	emit("ratio", ours/theirs)
	return nil
}

// memoryIdle is `benchtool memory-idle BIN HOME TMUX SOCKET N` (the rows
// memory-10 and memory-100): server-memory's measurement, then the PSS of
// a tmux server with N idle windows and a client attached, and the ratio.
func memoryIdle(bin, home, tmux, socket string, n int) error {
	b, err := startTUIBench(bin, home, idleHarness, n, idleShown, 0.02)
	if err != nil {
		return err
	}
	ours, err := b.emitMemory("memory-" + strconv.Itoa(n))
	b.close()
	if err != nil {
		return err
	}
	tb, err := startTmuxBench(tmux, socket, n, tmuxIdleCommand, tmuxIdle, 0.02)
	if err != nil {
		return err
	}
	defer tb.close()
	// tmux is read as ours is: once its PSS holds still.
	if _, _, err := steadyMemory(tb.serverPid, tb.client.pid()); err != nil {
		return err
	}
	srvPss, _, err := memoryOf(tb.serverPid)
	if err != nil {
		return err
	}
	cliPss, _, err := memoryOf(tb.client.pid())
	if err != nil {
		return err
	}
	emit("tmux_settled", tb.settled)
	emit("tmux_server_pss_bytes", srvPss)
	emit("tmux_client_pss_bytes", cliPss)
	emit("tmux_pss_bytes", srvPss+cliPss)
	emit("ratio", float64(ours)/float64(srvPss+cliPss))
	return nil
}

// firstFrame1000 is `benchtool first-frame-1000 BIN HOME TMUX SOCKET N
// RUNS`: N chats are written to the fresh agent home HOME (as ls-1000
// writes them), a tmux server on SOCKET gets N windows, and RUNS times, in
// turn: the TUI starts with no server (cold: it starts one; the server is
// killed after), the TUI starts with a server up (warm), and `tmux attach`
// starts. Each is timed from its start to the output that completes a
// frame showing "chats N" (tmux: its status line's "[bench]"). It prints
// the medians and each one's ratio to tmux's.
func firstFrame1000(bin, home, tmux, socket string, n, runs int) error {
	r, err := newServerRig(bin, home, nil)
	if err != nil {
		return err
	}
	defer r.close()
	if err := r.stop(); err != nil {
		return err
	}
	if _, err := writeChats(r.home, n); err != nil {
		return err
	}
	t := tmuxServer{bin: tmux, socket: socket}
	defer t.kill()
	if err := t.startWindows(n); err != nil {
		return err
	}
	want := "chats " + strconv.Itoa(n)
	var cold, warm, theirs []time.Duration
	for i := range runs {
		// A TUI that finds no server draws its first frame from the
		// chat files while the server it starts comes up: the run ends
		// once that server answers, so it is the TUI's that stop ends.
		d, err := timeFirstFrame(profiledTUI(r.binary, "cold", i), want, func() error { return awaitServer(r.home) })
		if err != nil {
			return fmt.Errorf("cold run %d: %w", i+1, err)
		}
		cold = append(cold, d)
		if err := r.stop(); err != nil { // the server the TUI started
			return err
		}
		if err := r.start(); err != nil {
			return err
		}
		if d, err = timeFirstFrame(profiledTUI(r.binary, "warm", i), want, nil); err != nil {
			return fmt.Errorf("warm run %d: %w", i+1, err)
		}
		warm = append(warm, d)
		if err := r.stop(); err != nil {
			return err
		}
		if d, err = timeFirstFrame(t.command("attach-session", "-t", "bench"), tmuxStatusMark, nil); err != nil {
			return fmt.Errorf("tmux attach run %d: %w", i+1, err)
		}
		theirs = append(theirs, d)
	}
	emit("bench", "first-frame-1000")
	emit("chats", n)
	emit("tmux_windows", n)
	emit("runs", runs)
	tm := median(theirs)
	emit("tmux_attach_median_seconds", tm.Seconds())
	for _, f := range []struct {
		name  string
		times []time.Duration
	}{{"cold", cold}, {"warm", warm}} {
		m := median(f.times)
		emit(f.name+"_median_seconds", m.Seconds())
		emit(f.name+"_ratio", m.Seconds()/tm.Seconds())
	}
	return nil
}

// awaitServer waits until a server answers on home's socket, for at most
// serverWait.
func awaitServer(home string) error {
	deadline := time.Now().Add(serverWait)
	for !serverAnswers(home) {
		if time.Now().After(deadline) {
			return fmt.Errorf("no server answers on %s within %s of the TUI's first frame", home, serverWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// profiledTUI is the TUI's command; with BENCH_TUI_CPUPROFILE=P set, it
// writes a CPU profile to P.PHASE.RUN (go tool pprof takes them together).
func profiledTUI(binary, phase string, run int) *exec.Cmd {
	cmd := exec.Command(binary)
	if p := os.Getenv("BENCH_TUI_CPUPROFILE"); p != "" {
		cmd.Env = append(os.Environ(), "ACPMUX_CPUPROFILE="+p+"."+phase+"."+strconv.Itoa(run))
	}
	return cmd
}

// timeFirstFrame starts cmd in a pty, waits for its output to show want,
// then for then (when given), hangs it up, and returns the time from its
// start to that output.
func timeFirstFrame(cmd *exec.Cmd, want string, then func() error) (time.Duration, error) {
	p, err := startInPty(cmd, want)
	if err != nil {
		return 0, err
	}
	err = p.waitReady()
	d := p.firstFrame()
	if err == nil && then != nil {
		err = then()
	}
	if cerr := p.close(); err == nil {
		err = cerr
	}
	return d, err
}
