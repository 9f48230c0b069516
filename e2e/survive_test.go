package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/proto"
)

// These tests kill the real server with SIGKILL and check what the next
// one does: no harness process is left behind, and the chats that were
// running come back resumed, with every folder; after kill-server, or a
// stop on purpose, nothing comes back.

// surviveStatuses returns each chat's status as the running server lists it.
func surviveStatuses(t *testing.T, home string) map[string]string {
	t.Helper()
	var list proto.ListResult
	srvCall(t, home, proto.MethodList, nil, &list)
	out := map[string]string{}
	for _, ch := range list.Chats {
		out[ch.ID] = ch.Status
	}
	return out
}

// surviveStarts returns the start records of one chat's harness.
func surviveStarts(t *testing.T, recFile, chat string) []startrecord.Record {
	t.Helper()
	recs, err := startrecord.Read(recFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []startrecord.Record
	for _, r := range recs {
		if id, _ := r.Getenv("ACPMUX_CHAT_ID"); id == chat {
			out = append(out, r)
		}
	}
	return out
}

func surviveWaitStarts(t *testing.T, recFile, chat string, n int) []startrecord.Record {
	t.Helper()
	var recs []startrecord.Record
	srvWaitFor(t, "a start of chat "+chat, func() bool {
		recs = surviveStarts(t, recFile, chat)
		return len(recs) >= n
	})
	return recs
}

// surviveGroup returns the live processes of a process group.
func surviveGroup(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// surviveIgnoresHUP reports whether a process ignores SIGHUP.
func surviveIgnoresHUP(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for line := range bytes.Lines(b) {
		if v, ok := strings.CutPrefix(string(line), "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&1 != 0
		}
	}
	return false
}

// surviveRecorded returns the chats the agent home records as running.
func surviveRecorded(home string) []string {
	ents, _ := os.ReadDir(filepath.Join(home, proto.RunningDir))
	var ids []string
	for _, e := range ents {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".json"))
	}
	slices.Sort(ids)
	return ids
}

// TestSurviveServerKilled: a server killed with SIGKILL takes its
// harnesses with it; a child in a harness's group that ignores SIGHUP
// outlives it, until the next server starts, which ends it before it
// answers. That server, started by a client, resumes the Claude Code chat
// with --resume and every folder; it leaves stopped a chat whose folder
// has gone (saying why), one stopped on purpose and one whose harness
// exited by itself. After kill-server no process is left, and the server
// after that starts nothing.
func TestSurviveServerKilled(t *testing.T) {
	c := newCLI(t)
	rec := fakeHarnesses(t, c, map[string]string{"claude": "nohup", "shell": "echo", "quit": "exit:0"})
	lib, notes, doomed := c.dir("lib"), c.dir("notes"), c.dir("doomed")
	resumed := c.chat("new", "--harness", "claude", "--dir", lib, "--dir", notes, "--json").ID
	gone := c.chat("new", "--dir", doomed, "--json").ID
	stopped := c.chat("new", "--json").ID
	quit := c.chat("new", "--harness", "quit", "--json").ID

	first := startForeground(t, c)
	for _, id := range []string{resumed, gone, stopped, quit} {
		srvCall(t, c.home, proto.MethodStart, proto.ChatParams{ID: id}, nil)
	}
	lead := surviveWaitStarts(t, rec, resumed, 1)[0]
	goneLead := surviveWaitStarts(t, rec, gone, 1)[0]
	surviveWaitStarts(t, rec, stopped, 1)
	srvCall(t, c.home, proto.MethodStop, proto.ChatParams{ID: stopped}, nil)
	var child int
	srvWaitFor(t, "the harness's child to ignore SIGHUP", func() bool {
		for _, pid := range surviveGroup(lead.Pgid) {
			if pid != lead.Pid && surviveIgnoresHUP(pid) && surviveIgnoresHUP(lead.Pid) {
				child = pid
				return true
			}
		}
		return false
	})
	srvWaitFor(t, "the quitting harness to exit", func() bool { return surviveStatuses(t, c.home)[quit] == "exited" })
	want := []string{resumed, gone}
	slices.Sort(want)
	srvWaitFor(t, "the records of the running harnesses", func() bool { return slices.Equal(surviveRecorded(c.home), want) })

	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.wait(t)
	srvWaitFor(t, "the harnesses to die with their server", func() bool {
		return !srvProcessAlive(lead.Pid) && !srvProcessAlive(goneLead.Pid)
	})
	if !srvProcessAlive(child) {
		t.Fatal("the child that ignores SIGHUP did not survive the server: nothing is tested")
	}
	if err := os.Remove(doomed); err != nil {
		t.Fatal(err)
	}

	for _, kv := range c.env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	conn, err := client.EnsureServer(c.home, binary)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), srvHang)
	defer cancel()
	if _, err := conn.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if srvProcessAlive(child) {
		t.Fatalf("the survivor %d still runs once the next server answers", child)
	}
	srvWaitGroupGone(t, lead.Pgid)
	st := surviveStatuses(t, c.home)
	if st[resumed] == "stopped" || st[resumed] == "failed" || st[gone] != "failed" || st[stopped] != "stopped" || st[quit] != "stopped" {
		t.Fatalf("after the restart: %v", st)
	}
	meta := c.chat("show", resumed, "--json")
	again := surviveWaitStarts(t, rec, resumed, 2)[1]
	// The hooks' --settings (see harness.BuildLaunch) come before the
	// folders; the rest is the resumed conversation and every folder.
	wantArgv := []string{"--resume", meta.AgentSessionID, "--settings", "(the hooks)", "--add-dir", lib, "--add-dir", notes}
	got := slices.Clone(again.Argv[1:])
	if i := slices.Index(got, "--settings"); i >= 0 && i+1 < len(got) && strings.Contains(got[i+1], `"hooks"`) {
		got[i+1] = "(the hooks)"
	}
	if meta.AgentSessionID == "" || !slices.Equal(got, wantArgv) {
		t.Fatalf("started again with %q, want %q (first start %q)", again.Argv, wantArgv, lead.Argv)
	}
	for _, id := range []string{gone, stopped, quit} {
		if n := len(surviveStarts(t, rec, id)); n != 1 {
			t.Errorf("chat %s: %d starts, want 1", id, n)
		}
	}
	log, _ := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
	if !strings.Contains(string(log), "chat not started again") || !strings.Contains(string(log), doomed) {
		t.Errorf("the log does not say why %s was not started:\n%s", gone, log)
	}

	if r := c.run("kill-server"); r.code != 0 {
		t.Fatalf("kill-server: exit %d, %q", r.code, r.stderr)
	}
	if srvProcessAlive(again.Pid) {
		t.Fatal("kill-server left the harness running")
	}
	srvWaitGroupGone(t, again.Pgid)
	if got := surviveRecorded(c.home); len(got) != 0 {
		t.Fatalf("records after kill-server: %v", got)
	}

	startForeground(t, c)
	for id, s := range surviveStatuses(t, c.home) {
		if s != "stopped" {
			t.Errorf("after kill-server, the next server shows chat %s %s", id, s)
		}
	}
	if n := len(surviveStarts(t, rec, resumed)); n != 2 {
		t.Fatalf("%d starts of the resumed chat, want 2", n)
	}
}

// TestSurviveRemoveStopsTheChat: rm of a chat a server runs stops its
// harness first (its record goes with it, so nothing starts it again);
// rm with no server running starts none.
func TestSurviveRemoveStopsTheChat(t *testing.T) {
	c := newCLI(t)
	rec := fakeHarnesses(t, c, map[string]string{"shell": "child"})
	id := c.chat("new", "--json").ID
	other := c.chat("new", "--json").ID
	startForeground(t, c)
	srvCall(t, c.home, proto.MethodStart, proto.ChatParams{ID: id}, nil)
	h := surviveWaitStarts(t, rec, id, 1)[0]
	srvWaitFor(t, "the record of the harness", func() bool { return slices.Equal(surviveRecorded(c.home), []string{id}) })

	if out := c.ok("rm", id); !strings.Contains(out, "removed "+id) {
		t.Fatalf("rm: %q", out)
	}
	if srvProcessAlive(h.Pid) || srvProcessAlive(h.ChildPid) {
		t.Fatal("rm returned with the harness running")
	}
	srvWaitGroupGone(t, h.Pgid)
	if got := surviveRecorded(c.home); len(got) != 0 {
		t.Fatalf("records after rm: %v", got)
	}

	if r := c.run("kill-server"); r.code != 0 {
		t.Fatalf("kill-server: exit %d, %q", r.code, r.stderr)
	}
	c.ok("rm", other)
	if _, err := client.Dial(c.home); err == nil {
		t.Fatal("rm started a server")
	}
	if _, err := os.Lstat(filepath.Join(c.home, proto.SocketName)); err == nil {
		t.Fatal("rm left a socket")
	}
}
