package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// The command-path benchmarks at a thousand chats, beside tmux on the
// same machine: ls-1000 times `acpmux-tui ls`, `ls --json` and `show ID`
// on an agent home of N chats, with no server and with one running,
// beside `tmux list-windows -a` on a tmux server with N windows; new-1000
// times N `acpmux-tui new` in a loop beside N `tmux new-window -d`. Each
// command is its own process, as a script runs it: the time is from
// Start to the end of Wait, its output read whole and checked.

// tmuxShell is the shell tmux starts in a window that names no command
// (its default-shell is $SHELL when its server starts): the lightest one,
// so tmux's figure is its own cost, not a login shell's.
const tmuxShell = "/bin/sh"

// lsFigures are the commands ls-1000 times, each with its check.
var lsFigures = []struct {
	name string
	args func(id string) []string
}{
	{"ls", func(string) []string { return []string{"ls"} }},
	{"ls_json", func(string) []string { return []string{"ls", "--json"} }},
	{"show", func(id string) []string { return []string{"show", id} }},
}

// ls1000 is `benchtool ls-1000 BIN HOME TMUX SOCKET N RUNS`: N chats are
// written to the fresh agent home HOME through the store (every tenth
// with two folders and a file, every other one a Claude Code chat, as a
// busy home looks), a tmux server on the private socket SOCKET gets N
// windows, and each of ls, ls --json, show (of the middle chat, by id) and
// tmux list-windows -a runs RUNS times, in turn, with no acpmux-tui server
// and then with one (started on HOME as a client starts it). It prints
// the median of each in seconds (NAME_noserver_median_seconds,
// NAME_server_median_seconds, tmux_list_median_seconds) and each one's
// ratio to tmux's.
func ls1000(bin, home, tmux, socket string, n, runs int) error {
	r, err := newServerRig(bin, home, nil)
	if err != nil {
		return err
	}
	defer r.close()
	if err := r.stop(); err != nil {
		return err
	}
	ids, err := writeChats(r.home, n)
	if err != nil {
		return err
	}
	show := ids[len(ids)/2]
	t := tmuxServer{bin: tmux, socket: socket}
	defer t.kill()
	if err := t.startWindows(n); err != nil {
		return err
	}
	times := map[string][]time.Duration{}
	measure := func(phase string) error {
		for i := range runs {
			for _, f := range lsFigures {
				d, err := timeListing(bin, f.args(show), n)
				if err != nil {
					return fmt.Errorf("%s run %d, %s: %w", f.name, i+1, phase, err)
				}
				times[f.name+"_"+phase] = append(times[f.name+"_"+phase], d)
			}
			d, err := t.timeList(n)
			if err != nil {
				return fmt.Errorf("tmux list-windows run %d: %w", i+1, err)
			}
			times["tmux_list"] = append(times["tmux_list"], d)
		}
		return nil
	}
	if err := measure("noserver"); err != nil {
		return err
	}
	if err := r.start(); err != nil {
		return err
	}
	if err := measure("server"); err != nil {
		return err
	}
	emit("bench", "ls-1000")
	emit("chats", n)
	emit("tmux_windows", n)
	emit("runs", runs)
	tm := median(times["tmux_list"])
	emit("tmux_list_median_seconds", tm.Seconds())
	for _, phase := range []string{"noserver", "server"} {
		for _, f := range lsFigures {
			m := median(times[f.name+"_"+phase])
			emit(f.name+"_"+phase+"_median_seconds", m.Seconds())
			emit(f.name+"_"+phase+"_ratio", m.Seconds()/tm.Seconds())
		}
	}
	return nil
}

// new1000 is `benchtool new-1000 BIN HOME TMUX SOCKET N`: N runs of
// `BIN new --harness shell` on the fresh agent home HOME with no server,
// each followed by a `tmux new-window -d` on a tmux server on SOCKET (the
// two take turns, so a machine that slows down slows both). It prints the
// total seconds of each loop and their ratio, and checks that N chats and
// N more windows are there at the end.
func new1000(bin, home, tmux, socket string, n int) error {
	r, err := newServerRig(bin, home, nil)
	if err != nil {
		return err
	}
	defer r.close()
	if err := r.stop(); err != nil {
		return err
	}
	t := tmuxServer{bin: tmux, socket: socket}
	defer t.kill()
	if err := t.startWindows(1); err != nil {
		return err
	}
	var ours, theirs time.Duration
	for i := range n {
		cmd := exec.Command(bin, "new", "--harness", "shell")
		var out bytes.Buffer
		cmd.Stdout = &out
		d, err := timeRun(cmd)
		if err != nil {
			return fmt.Errorf("new %d of %d: %w", i+1, n, err)
		}
		if !bytes.HasPrefix(out.Bytes(), []byte("id ")) {
			return fmt.Errorf("new %d of %d printed %q, not a chat", i+1, n, out.Bytes())
		}
		ours += d
		if d, err = timeRun(t.command("new-window", "-d")); err != nil {
			return fmt.Errorf("tmux new-window %d of %d: %w", i+1, n, err)
		}
		theirs += d
	}
	if got := countChats(r.home); got != n {
		return fmt.Errorf("%d chat files after %d new, want %d", got, n, n)
	}
	if err := t.checkWindows(n + 1); err != nil {
		return err
	}
	emit("bench", "new-1000")
	emit("runs", n)
	emit("ours_seconds", ours.Seconds())
	emit("tmux_seconds", theirs.Seconds())
	emit("ours_per_new_ms", ms(ours/time.Duration(n)))
	emit("tmux_per_new_ms", ms(theirs/time.Duration(n)))
	emit("ratio", ours.Seconds()/theirs.Seconds())
	return nil
}

// stop kills the rig's server (kill-server, as a user would) and waits
// until it has gone; close still runs at the end.
func (r *serverRig) stop() error {
	if r.conn != nil {
		r.conn.Close()
		r.conn = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), killWait)
	defer cancel()
	if _, err := client.KillServer(ctx, r.home); err != nil {
		return fmt.Errorf("kill the server of %s: %w", r.home, err)
	}
	if serverAnswers(r.home) {
		return fmt.Errorf("the server of %s still answers after kill-server", r.home)
	}
	return nil
}

// writeChats writes n chats to the store of home, as `new` would: every
// tenth with two folders and a file (made under home's parent), every
// other one a Claude Code chat. It returns their ids.
func writeChats(home string, n int) ([]string, error) {
	store, err := sessions.OpenStore(home)
	if err != nil {
		return nil, err
	}
	side := home + ".folders"
	dirs := []string{filepath.Join(side, "lib"), filepath.Join(side, "notes")}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	file := filepath.Join(side, "spec.md")
	if err := os.WriteFile(file, []byte("# spec\n"), 0o644); err != nil {
		return nil, err
	}
	ids := make([]string, n)
	for i := range ids {
		c := sessions.NewChat{Harness: "shell", Name: "chat " + strconv.Itoa(i)}
		if i%2 == 1 {
			c.Harness = "claude"
		}
		if i%10 == 0 {
			c.AdditionalDirectories, c.AdditionalFiles = dirs, []string{file}
		}
		m, err := store.Create(c)
		if err != nil {
			return nil, fmt.Errorf("write chat %d of %d: %w", i+1, n, err)
		}
		ids[i] = m.ID
	}
	return ids, nil
}

// countChats counts the chat files of home.
func countChats(home string) int {
	des, _ := os.ReadDir(filepath.Join(home, "chats"))
	n := 0
	for _, de := range des {
		if strings.HasSuffix(de.Name(), ".toml") && !strings.HasPrefix(de.Name(), ".") {
			n++
		}
	}
	return n
}

// timeListing runs bin with args, and checks what it printed lists n
// chats (ls: a header and n rows; ls --json: an array of n; show: the
// chat's id row).
func timeListing(bin string, args []string, n int) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	d, err := timeRun(cmd)
	if err != nil {
		return 0, err
	}
	switch {
	case args[0] == "show":
		if !bytes.HasPrefix(out.Bytes(), []byte("id ")) || !bytes.Contains(out.Bytes(), []byte(args[1])) {
			return 0, fmt.Errorf("show printed %q", out.Bytes())
		}
	case len(args) > 1:
		var chats []proto.ChatJSON
		if err := json.Unmarshal(out.Bytes(), &chats); err != nil || len(chats) != n {
			return 0, fmt.Errorf("ls --json printed %d chats (%v), want %d", len(chats), err, n)
		}
	default:
		if lines := bytes.Count(out.Bytes(), []byte("\n")); lines != n+1 {
			return 0, fmt.Errorf("ls printed %d lines, want %d", lines, n+1)
		}
	}
	return d, nil
}

// timeRun runs cmd and returns the time from Start to the end of Wait;
// it fails if cmd exits non-zero or writes to stderr.
func timeRun(cmd *exec.Cmd) (time.Duration, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	err := cmd.Wait()
	d := time.Since(begin)
	if err != nil {
		return 0, fmt.Errorf("%s: %w: %q", cmd, err, stderr.Bytes())
	}
	if stderr.Len() > 0 {
		return 0, fmt.Errorf("%s wrote on stderr: %q", cmd, stderr.Bytes())
	}
	return d, nil
}

// median is the middle time (the mean of the two middle ones for an even
// count).
func median(times []time.Duration) time.Duration {
	s := slices.Clone(times)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// tmuxServer is a tmux server on a private socket (-L), with no config
// file read.
type tmuxServer struct{ bin, socket string }

// command is a tmux client command on the server's socket.
func (t tmuxServer) command(args ...string) *exec.Cmd {
	cmd := exec.Command(t.bin, append([]string{"-L", t.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "SHELL="+tmuxShell)
	return cmd
}

// startWindows starts the server with a session of n windows (its first
// and n-1 more), each running the shell, or the shell command given, in
// batches of commands joined by tmux's ";" so that making them is not
// what is measured. The session is 160x45, the benchmark's size.
func (t tmuxServer) startWindows(n int, shellCommand ...string) error {
	if err := t.command("kill-server").Run(); err == nil {
		return fmt.Errorf("a tmux server already ran on socket %s", t.socket)
	}
	session := []string{"new-session", "-d", "-s", "bench", "-x", strconv.Itoa(benchCols), "-y", strconv.Itoa(benchRows)}
	if out, err := t.command(append(session, shellCommand...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("tmux new-session: %w: %s", err, out)
	}
	for left := n - 1; left > 0; {
		batch := min(left, 100)
		var args []string
		for i := range batch {
			if i > 0 {
				args = append(args, ";")
			}
			args = append(append(args, "new-window", "-d"), shellCommand...)
		}
		if out, err := t.command(args...).CombinedOutput(); err != nil {
			return fmt.Errorf("tmux new-window: %w: %s", err, out)
		}
		left -= batch
	}
	return t.checkWindows(n)
}

// checkWindows fails unless the server has n windows.
func (t tmuxServer) checkWindows(n int) error {
	out, err := t.command("list-windows", "-a").Output()
	if err != nil {
		return fmt.Errorf("tmux list-windows: %w", err)
	}
	if got := bytes.Count(out, []byte("\n")); got != n {
		return fmt.Errorf("tmux has %d windows, want %d", got, n)
	}
	return nil
}

// timeList times one `tmux list-windows -a` and checks it listed n
// windows.
func (t tmuxServer) timeList(n int) (time.Duration, error) {
	cmd := t.command("list-windows", "-a")
	var out bytes.Buffer
	cmd.Stdout = &out
	d, err := timeRun(cmd)
	if err != nil {
		return 0, err
	}
	if got := bytes.Count(out.Bytes(), []byte("\n")); got != n {
		return 0, fmt.Errorf("tmux list-windows -a listed %d windows, want %d", got, n)
	}
	return d, nil
}

// kill ends the tmux server and removes its socket file.
func (t tmuxServer) kill() {
	_ = t.command("kill-server").Run()
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	os.Remove(filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), t.socket))
}
