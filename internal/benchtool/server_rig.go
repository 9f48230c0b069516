package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/charmbracelet/x/ansi"
)

// This file is what the server benchmarks share: a real `acpmux-tui
// server` over a fresh agent home whose config defines the benchmark's
// harnesses, this process's connection to it (a client.Remote, the TUI's
// view of the server's mux), and the readings of other processes' CPU time
// and memory from /proc.

// serverWait bounds every wait for the server or a chat to reach a state
// (a chat to start, show its prompt, exit); past it the run is not valid.
const serverWait = 60 * time.Second

// killWait bounds kill-server: every harness gets its grace period.
const killWait = 2 * time.Minute

// serverRig is a running server and this process's Remote on it.
type serverRig struct {
	binary string // the acpmux-tui binary
	home   string // the agent home
	pid    int    // the server's process
	conn   *client.Conn
	remote *client.Remote // nil until watch, and once closed

	closeOnce sync.Once
	stopSig   func()
}

// newServerRig makes home (it must not exist, or be empty), writes a config
// file there defining harnesses, and starts `binary server` on it as a
// client does (client.EnsureServer). ACPMUX_HOME and ACPMUX_CONFIG are set
// in this process's environment, so the server and any TUI started later
// see the same home and config. A signal (SIGINT, SIGTERM, SIGHUP) kills
// the server before this process ends.
func newServerRig(binary, home string, harnesses map[string]config.HarnessConfig) (*serverRig, error) {
	bin, err := filepath.Abs(binary)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		return nil, fmt.Errorf("acpmux-tui binary %s: not a file", bin)
	}
	if home, err = filepath.Abs(home); err != nil {
		return nil, err
	}
	if err := freshDir(home); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(home, "bench-config.toml")
	if err := writeBenchConfig(cfgPath, harnesses); err != nil {
		return nil, err
	}
	os.Setenv("ACPMUX_HOME", home)
	os.Setenv("ACPMUX_CONFIG", cfgPath)
	if c, err := client.Dial(home); err == nil {
		c.Close()
		return nil, fmt.Errorf("a server already runs on %s", home)
	}
	r := &serverRig{binary: bin, home: home}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		if s, ok := <-sigs; ok {
			r.close()
			fmt.Fprintln(os.Stderr, "benchtool:", s)
			os.Exit(130)
		}
	}()
	r.stopSig = func() { signal.Stop(sigs); close(sigs) }
	if err := r.start(); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// start starts the server on the rig's home as a client does
// (client.EnsureServer), and keeps the connection.
func (r *serverRig) start() error {
	conn, err := client.EnsureServer(r.home, r.binary)
	if err != nil {
		return err
	}
	r.conn = conn
	ctx, cancel := context.WithTimeout(context.Background(), serverWait)
	defer cancel()
	h, err := conn.Hello(ctx)
	if err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	r.pid = h.Pid
	return nil
}

// serverAnswers reports whether a server answers on home's socket.
func serverAnswers(home string) bool {
	c, err := client.Dial(home)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// freshDir makes dir, which must not exist or be empty.
func freshDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o700)
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("agent home %s is not empty: the benchmark wants a fresh one", dir)
	}
	return nil
}

// writeBenchConfig writes a config file holding the harnesses (each a plain
// pty harness) and checks that it loads.
func writeBenchConfig(path string, harnesses map[string]config.HarnessConfig) error {
	table := map[string]config.HarnessConfig{}
	for name, h := range harnesses {
		h.Kind, h.Transport = harness.KindPlain, harness.TransportPty
		table[name] = h
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write bench config: %w", err)
	}
	err = toml.NewEncoder(f).Encode(struct {
		Harness map[string]config.HarnessConfig `toml:"harness"`
	}{table})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write bench config %s: %w", path, err)
	}
	if _, err := config.Load(path); err != nil {
		return fmt.Errorf("bench config %s: %w", path, err)
	}
	return nil
}

// watch makes the rig's connection a Remote, as the TUI's is.
func (r *serverRig) watch() error {
	rem, err := client.NewRemote(r.conn)
	r.conn = nil // the Remote owns it now, even on an error
	if err != nil {
		return err
	}
	r.remote = rem
	return nil
}

// unwatch closes the rig's Remote, so that what is measured next is the
// server serving the TUI alone.
func (r *serverRig) unwatch() {
	if r.remote != nil {
		r.remote.Close()
		r.remote = nil
	}
}

// newChat creates a chat of that harness without starting it.
func (r *serverRig) newChat(harnessName string) (string, error) {
	if r.conn == nil {
		return "", errors.New("new chat: the connection is watching already")
	}
	ctx, cancel := context.WithTimeout(context.Background(), serverWait)
	defer cancel()
	var chat proto.ChatJSON
	if err := r.conn.Call(ctx, proto.MethodNew, proto.NewParams{Harness: harnessName}, &chat); err != nil {
		return "", fmt.Errorf("new chat: %w", err)
	}
	return chat.ID, nil
}

// startChats creates and starts n chats of that harness at the benchmark
// size, through the Remote.
func (r *serverRig) startChats(harnessName string, n int) ([]string, error) {
	ids := make([]string, n)
	for i := range ids {
		meta, err := r.remote.CreateAndStart(sessions.NewChat{Harness: harnessName}, benchCols, benchRows)
		if err != nil {
			return nil, fmt.Errorf("create and start chat %d of %d: %w", i+1, n, err)
		}
		ids[i] = meta.ID
	}
	return ids, nil
}

// waitAll polls every chat until ok holds for each, or fails at the
// deadline naming the first chat that is not there.
func (r *serverRig) waitAll(ids []string, what string, ok func(id string) bool) error {
	deadline := time.Now().Add(serverWait)
	for _, id := range ids {
		for !ok(id) {
			if time.Now().After(deadline) {
				s := r.remote.State(id)
				return fmt.Errorf("chat %s: not %s after %s (status %s %s)", id, what, serverWait, s.Status, s.Reason)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// resizedByTUI reports whether the chat's pty has left the size it was
// started at: the TUI has sized it to its chat pane.
func (r *serverRig) resizedByTUI(id string) bool {
	t := r.remote.Terminal(id)
	return t.Cols > 0 && (t.Cols != benchCols || t.Rows != benchRows)
}

// checkLive fails unless the server still runs every chat (asked on a new
// connection, after the Remote was closed).
func (r *serverRig) checkLive(ids []string) error {
	live := client.LiveStatuses(r.home)
	if live == nil {
		return errors.New("the server did not answer the list after the measurement")
	}
	for _, id := range ids {
		if s := live[id].Status; s != proto.StatusRunning.String() && s != proto.StatusWaiting.String() {
			return fmt.Errorf("chat %s is %q after the measurement, want it running", id, s)
		}
	}
	return nil
}

// close closes the Remote and kills the server (every harness stopped, the
// server gone). It runs once; errors are printed, not returned, since it
// runs on the way out.
func (r *serverRig) close() {
	r.closeOnce.Do(func() {
		if r.remote != nil {
			r.remote.Close()
		}
		if r.conn != nil {
			r.conn.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), killWait)
		defer cancel()
		if _, err := client.KillServer(ctx, r.home); err != nil && !errors.Is(err, client.ErrNoServer) {
			fmt.Fprintf(os.Stderr, "benchtool: kill the server of %s: %v\n", r.home, err)
			if r.pid > 0 {
				syscall.Kill(r.pid, syscall.SIGKILL)
			}
		}
		if r.stopSig != nil {
			r.stopSig()
		}
	})
}

// plainRows returns a rendered screen's rows as a terminal shows them:
// escape sequences removed, trailing blanks trimmed.
func plainRows(text string) []string {
	rows := strings.Split(ansi.Strip(text), "\n")
	for i, l := range rows {
		rows[i] = strings.TrimRight(l, " ")
	}
	return rows
}

// lastRow returns the last non-blank row of a rendered screen, as
// plainRows shows it. It looks at rows from the bottom and strips styling
// only from a row with more than blanks in it: it runs inside the timed
// part of a keystroke, where stripping a whole 160x45 screen (about 60 us)
// would be the observer's cost, not the path's.
func lastRow(text string) string {
	end := len(text)
	for {
		start := strings.LastIndexByte(text[:end], '\n') + 1
		if raw := strings.TrimRight(text[start:end], " "); raw != "" {
			if row := strings.TrimRight(ansi.Strip(raw), " "); row != "" {
				return row
			}
		}
		if start == 0 {
			return ""
		}
		end = start - 1
	}
}

// userHZ is the unit of the CPU times in /proc/PID/stat: USER_HZ, 100 on
// every architecture Go runs Linux on.
const userHZ = 100

// procTicks returns a process's user plus system CPU time so far, in
// USER_HZ ticks, from fields 14 and 15 of /proc/PID/stat.
func procTicks(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("read cpu of process %d: %w", pid, err)
	}
	return parseProcStat(string(b))
}

// parseProcStat reads utime + stime from a /proc/PID/stat line. The
// command name (field 2) may hold spaces and parentheses: the fields are
// counted from the last ')'.
func parseProcStat(s string) (uint64, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat line %q: no command name", s)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state): utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("stat line %q: too few fields", s)
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("stat line %q: utime %q, stime %q not understood", s, f[11], f[12])
	}
	return ut + st, nil
}

// ticksOf sums the CPU ticks of the processes.
func ticksOf(pids ...int) (uint64, error) {
	var sum uint64
	for _, pid := range pids {
		t, err := procTicks(pid)
		if err != nil {
			return 0, err
		}
		sum += t
	}
	return sum, nil
}

// memoryOf returns a process's proportional set size and resident set size
// in bytes, from /proc/PID/smaps_rollup.
func memoryOf(pid int) (pss, rss int64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0, 0, fmt.Errorf("read memory of process %d: %w", pid, err)
	}
	return parseSmapsRollup(string(b))
}

// parseSmapsRollup reads the Pss and Rss lines (in kB) of smaps_rollup.
func parseSmapsRollup(s string) (pss, rss int64, err error) {
	found := 0
	for line := range strings.Lines(s) {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "kB" || (f[0] != "Pss:" && f[0] != "Rss:") {
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("smaps_rollup line %q not understood", strings.TrimSpace(line))
		}
		if f[0] == "Pss:" {
			pss = kb * 1024
		} else {
			rss = kb * 1024
		}
		found++
	}
	if found != 2 {
		return 0, 0, errors.New("smaps_rollup: no Pss and Rss lines")
	}
	return pss, rss, nil
}

// pssParts returns a process's PSS split as smaps_rollup splits it: anon
// (heap, stacks, the Go runtime's own) and file (the binary's text and
// data pages, shared libraries), in bytes; where the memory goes.
func pssParts(pid int) (anon, file int64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0, 0, fmt.Errorf("read memory of process %d: %w", pid, err)
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("smaps_rollup line %q not understood", strings.TrimSpace(line))
		}
		switch f[0] {
		case "Pss_Anon:":
			anon = kb * 1024
		case "Pss_File:":
			file = kb * 1024
		}
	}
	return anon, file, nil
}
