package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// The hook benchmark: how long `acpmux-tui hook PreToolUse` takes from
// exec to exit, as Claude Code waits for it at every tool call. Each run
// gets a typical PreToolUse event on stdin and the environment a chat's
// harness has: the id of a real chat of a real server's agent home, whose
// server it reports to; the same runs with no server (no socket) beside
// them, and /bin/true as the floor of a fork and exec on this machine. The
// three kinds of run take turns, so a machine that slows down slows all
// three. Then the same runs with the server while two busy loops spin (a
// loaded machine), and against a server that accepts and never answers and
// one that never accepts, deafRuns runs each of two kinds: the worst case,
// a Notification with a stdin that is never closed, each run with a TMPDIR
// of its own (so each meets no marker of a hung server, and its every wait
// runs to its deadline); and a hung server as Claude Code meets it, that
// many PreToolUse hooks one after another, their event on stdin, sharing
// one TMPDIR (the first waits its budget and leaves the marker, the rest
// give the server hookearly.HungBudget).

// deafRuns is how many runs each deaf server gets of each kind.
const deafRuns = 20

// hookEvent is the typical PreToolUse event: what Claude Code writes on a
// hook's stdin before a Bash tool call.
const hookEvent = `{"session_id":"0b7c2f1e-5a4d-4c1e-9f3a-2d8e6b1c0a9f",` +
	`"transcript_path":"/home/user/.claude/projects/-home-user-src-project/0b7c2f1e-5a4d-4c1e-9f3a-2d8e6b1c0a9f.jsonl",` +
	`"cwd":"/home/user/src/project","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash",` +
	`"tool_input":{"command":"go test ./... 2>&1 | tail -n 40","description":"Run the tests and show the end of the output"},` +
	`"tool_use_id":"toolu_01A2B3C4D5E6F7G8H9J0K1L2"}`

// hookBench runs `binary hook PreToolUse` n times against a server on the
// fresh agent home home, and n times with no server; it prints p50, p99,
// mean and max of each (server_*, noserver_*, true_*, in milliseconds), and
// what the binary's package inits cost (one run with GODEBUG=inittrace=1).
// The runs are made from inside a chat, as Claude Code makes them: the
// chat's harness is `benchtool hook-loop` (hookLoop), so each report is
// one the server takes (it takes them only from the chat's own harness)
// and goes the whole way: the server's call, the mux's report, the status
// changed.
func hookBench(binary, home string, n int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(binary)
	if err != nil {
		return err
	}
	times := filepath.Join(filepath.Dir(home), filepath.Base(home)+".hook-times")
	os.Remove(times)
	defer os.Remove(times)
	r, err := newServerRig(binary, home, map[string]config.HarnessConfig{
		"bench-hook": {Command: self, Args: []string{"hook-loop", abs, strconv.Itoa(n), times}},
	})
	if err != nil {
		return err
	}
	defer r.close()
	if err := r.watch(); err != nil {
		return err
	}
	ids, err := r.startChats("bench-hook", 1)
	if err != nil {
		return err
	}
	id := ids[0]
	got, err := waitHookTimes(times, time.Duration(n)*time.Second+5*time.Minute)
	if err != nil {
		return err
	}
	deafAccept, deafAcceptSeq, err := deafBench(r.binary, r.home, id, "deaf-accept", listenDeaf)
	if err != nil {
		return err
	}
	deafFull, deafFullSeq, err := deafBench(r.binary, r.home, id, "deaf-full", listenFull)
	if err != nil {
		return err
	}
	emit("bench", "hook")
	emit("runs", n)
	for _, kind := range []string{"server", "noserver", "true", "busy_server"} {
		if len(got[kind]) != n {
			return fmt.Errorf("the chat's hook loop timed %d %s runs, want %d", len(got[kind]), kind, n)
		}
		emitTimes(kind, got[kind])
	}
	emit("deaf_runs", deafRuns)
	emitTimes("deaf_accept", deafAccept)
	emitTimes("deaf_full", deafFull)
	emitSeq("deaf_accept_seq", deafAcceptSeq)
	emitSeq("deaf_full_seq", deafFullSeq)
	return emitInits(r.binary, hookEnviron(r.home, id))
}

// waitHookTimes waits, at most wait, for the file hookLoop writes, and
// reads its times by kind.
func waitHookTimes(file string, wait time.Duration) (map[string][]time.Duration, error) {
	deadline := time.Now().Add(wait)
	var b []byte
	for {
		var err error
		if b, err = os.ReadFile(file); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the chat's hook loop wrote no times to %s within %s", file, wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := map[string][]time.Duration{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		kind, val, _ := strings.Cut(line, " ")
		if kind == "error" {
			return nil, fmt.Errorf("the chat's hook loop: %s", val)
		}
		ns, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("hook times: %q", line)
		}
		got[kind] = append(got[kind], time.Duration(ns))
	}
	return got, nil
}

// hookLoop is `benchtool hook-loop BIN N FILE`, a chat's harness for
// hookBench: from inside the chat, as Claude Code runs its hooks, it times
// N hooks reporting to the chat's server (the ACPMUX_HOME and
// ACPMUX_CHAT_ID the chat gives it), each followed by one with no server
// and one of /bin/true (the three take turns, so a machine that slows down
// slows all three), then N more while two busy loops spin. It writes
// "KIND NANOSECONDS" lines to FILE (atomically; "error TEXT" if a run
// failed) and then holds its pty until it is stopped.
func hookLoop(binary string, n int, file string) error {
	err := hookLoopRuns(binary, n, file)
	if err != nil {
		os.WriteFile(file+".tmp", []byte("error "+strings.ReplaceAll(err.Error(), "\n", " ")+"\n"), 0o644)
	}
	if rerr := os.Rename(file+".tmp", file); rerr != nil && err == nil {
		err = rerr
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return err
}

func hookLoopRuns(binary string, n int, file string) error {
	id, home := os.Getenv(harness.EnvChatID), os.Getenv(harness.EnvHome)
	if id == "" || home == "" {
		return fmt.Errorf("not run as a chat's harness: %s or %s unset", harness.EnvChatID, harness.EnvHome)
	}
	absent, err := os.MkdirTemp("", "acpmux-no-server") // an agent home with no socket
	if err != nil {
		return err
	}
	defer os.RemoveAll(absent)
	withServer := hookEnviron(home, id)
	noServer := hookEnviron(absent, id)
	var out strings.Builder
	record := func(kind string, d time.Duration) { fmt.Fprintf(&out, "%s %d\n", kind, d.Nanoseconds()) }
	for i := range n {
		d, err := timeHook(binary, withServer)
		if err != nil {
			return fmt.Errorf("run %d with the server: %w", i+1, err)
		}
		record("server", d)
		if d, err = timeHook(binary, noServer); err != nil {
			return fmt.Errorf("run %d with no server: %w", i+1, err)
		}
		record("noserver", d)
		if d, err = timeExec(exec.Command("/bin/true")); err != nil {
			return fmt.Errorf("run %d of /bin/true: %w", i+1, err)
		}
		record("true", d)
	}
	stopBusy, err := startBusyLoops(2)
	if err != nil {
		return err
	}
	defer stopBusy()
	for i := range n {
		d, err := timeHook(binary, withServer)
		if err != nil {
			return fmt.Errorf("run %d with the server and two busy loops: %w", i+1, err)
		}
		record("busy_server", d)
	}
	return os.WriteFile(file+".tmp", []byte(out.String()), 0o644)
}

// startBusyLoops starts n shell loops that spin until the returned stop.
func startBusyLoops(n int) (stop func(), err error) {
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for range n {
		c := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			stop()
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// deafBench times, against the socket listen makes in a new agent home
// (named name under home) for chat id, deafRuns runs of a Notification
// hook whose stdin is a pipe never closed, each with a TMPDIR of its own
// (worst), then deafRuns PreToolUse hooks one after another, their event on
// stdin, sharing one TMPDIR (seq).
func deafBench(binary, home, id, name string, listen func(socket string) (func(), error)) (worst, seq []time.Duration, err error) {
	dir := filepath.Join(home, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, nil, err
	}
	socket := filepath.Join(dir, proto.SocketName)
	addr, release, err := proto.ShortAddr(socket) // as the hook reaches it
	if err != nil {
		return nil, nil, err
	}
	closeIt, err := listen(addr)
	release()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	defer os.Remove(socket)
	defer closeIt()
	tmpdir := func() ([]string, error) {
		tmp, err := os.MkdirTemp(dir, "tmp")
		if err != nil {
			return nil, err
		}
		return append(hookEnviron(dir, id), "TMPDIR="+tmp), nil
	}
	for i := range deafRuns {
		env, err := tmpdir()
		if err != nil {
			return nil, nil, err
		}
		r, w, err := os.Pipe()
		if err != nil {
			return nil, nil, err
		}
		cmd := exec.Command(binary, harness.HookCommand, "Notification")
		cmd.Env, cmd.Stdin = env, r
		d, err := timeExec(cmd)
		r.Close()
		w.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("%s run %d: %w", name, i+1, err)
		}
		worst = append(worst, d)
	}
	env, err := tmpdir()
	if err != nil {
		return nil, nil, err
	}
	for i := range deafRuns {
		d, err := timeHook(binary, env)
		if err != nil {
			return nil, nil, fmt.Errorf("%s hook %d in a row: %w", name, i+1, err)
		}
		seq = append(seq, d)
	}
	return worst, seq, nil
}

// listenDeaf listens on socket, accepts, reads and never answers.
func listenDeaf(socket string) (func(), error) {
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	return func() { ln.Close() }, nil
}

// newChatJSON creates a chat with `acpmux-tui new --json`, as a user
// would, in the agent home and config the rig set in the environment, and
// hookEnviron is the environment a chat's harness gives its hooks.
func hookEnviron(home, id string) []string {
	return []string{harness.EnvChatID + "=" + id, harness.EnvHome + "=" + home, "PATH=" + os.Getenv("PATH")}
}

// timeHook runs the hook once with env and the event on stdin, and
// returns its time from exec to exit. A run that fails or prints anything
// is not valid.
func timeHook(binary string, env []string) (time.Duration, error) {
	cmd := exec.Command(binary, harness.HookCommand, "PreToolUse")
	cmd.Env = env
	cmd.Stdin = bytes.NewReader([]byte(hookEvent))
	return timeExec(cmd)
}

// timeExec runs cmd and returns the time from Start to the end of Wait; it
// fails if cmd exits non-zero or prints.
func timeExec(cmd *exec.Cmd) (time.Duration, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	d, err := timeRun(cmd)
	if err == nil && out.Len() > 0 {
		err = fmt.Errorf("%s printed %q", cmd, out.Bytes())
	}
	return d, err
}

// emitTimes prints p50, p99, mean and max, in milliseconds, as
// NAME_p50_ms and so on.
func emitTimes(name string, times []time.Duration) {
	var sum time.Duration
	for _, t := range times {
		sum += t
	}
	emit(name+"_p50_ms", ms(percentile(times, 0.50)))
	emit(name+"_p99_ms", ms(percentile(times, 0.99)))
	emit(name+"_mean_ms", ms(sum/time.Duration(max(len(times), 1))))
	emit(name+"_max_ms", ms(slices.Max(times)))
}

// emitSeq prints the first of times, in milliseconds, as NAME_first_ms,
// and the rest as emitTimes does, as NAME_rest_p50_ms and so on.
func emitSeq(name string, times []time.Duration) {
	emit(name+"_first_ms", ms(times[0]))
	emitTimes(name+"_rest", times[1:])
}

// initLine is one package's line of GODEBUG=inittrace=1.
var initLine = regexp.MustCompile(`(?m)^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock`)

// emitInits runs the hook once with GODEBUG=inittrace=1 and prints the
// time all package inits took (init_ms), and the costliest package's
// (init_top, init_top_ms): they run before the hook's first line.
func emitInits(binary string, env []string) error {
	cmd := exec.Command(binary, harness.HookCommand, "PreToolUse")
	cmd.Env = append(env, "GODEBUG=inittrace=1")
	cmd.Stdin = bytes.NewReader([]byte(hookEvent))
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("hook with inittrace: %w", err)
	}
	var total, top float64
	topPkg := ""
	for _, m := range initLine.FindAllStringSubmatch(trace.String(), -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		total += v
		if v > top {
			top, topPkg = v, m[1]
		}
	}
	if topPkg == "" {
		return fmt.Errorf("no init trace from the hook: %q", trace.Bytes())
	}
	emit("init_ms", total)
	emit("init_top", topPkg)
	emit("init_top_ms", top)
	return nil
}
