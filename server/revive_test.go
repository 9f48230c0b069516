package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// world is an agent home and the harnesses of the servers started on it,
// one after another. Each server records its harnesses as `acpmux-tui
// server` does.
type world struct {
	t       *testing.T
	home    string
	store   *sessions.Store
	recFile string // every fake's start records
	wire    string // what the ACP fake received
	cfg     *config.Config
	table   *harness.Table
	log     *lockedbuf.Buffer
}

// newWorld makes an agent home whose harnesses are: shell (the pty fake
// echoing), quit (exits 0 at once), crash (exits 3 at once), claude (the
// pty fake as Claude Code, storing its sessions) and, with acp set, agent
// (the ACP fake, advertising folders and keeping its sessions on disk).
func newWorld(t *testing.T, acp bool) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, home: filepath.Join(root, "agent"), recFile: filepath.Join(root, "starts.jsonl"),
		wire: filepath.Join(root, "wire.jsonl"), log: &lockedbuf.Buffer{}}
	if w.store, err = sessions.OpenStore(w.home); err != nil {
		t.Fatal(err)
	}
	env := func(mode string) map[string]string {
		return map[string]string{"ACPMUX_FAKE_RECORD": w.recFile, "ACPMUX_FAKE_MODE": mode}
	}
	claude := env("echo")
	claude["CLAUDE_CONFIG_DIR"] = filepath.Join(root, "claude")
	w.cfg = config.Defaults()
	w.cfg.DefaultHarness = "shell"
	w.cfg.Harness = map[string]config.HarnessConfig{
		"shell":  {Command: fakeHarness, Env: env("echo")},
		"quit":   {Command: fakeHarness, Env: env("exit:0")},
		"crash":  {Command: fakeHarness, Env: env("exit:3")},
		"claude": {Command: fakeHarness, Env: claude},
	}
	if acp {
		fake := filepath.Join(t.TempDir(), "acpfake")
		if out, err := exec.Command("go", "build", "-o", fake, "../internal/testharness/acpfake").CombinedOutput(); err != nil {
			t.Fatalf("build acpfake: %v\n%s", err, out)
		}
		w.cfg.Harness["agent"] = config.HarnessConfig{Command: fake, Kind: harness.KindACP, Transport: harness.TransportACP, Env: map[string]string{
			"ACPMUX_FAKE_RECORD": w.recFile, "ACPMUX_FAKE_WIRE": w.wire,
			"ACPMUX_FAKE_ADVERTISE": "1", "ACPMUX_FAKE_STATE": filepath.Join(root, "acp-sessions"),
		}}
	}
	if w.table, err = harness.NewTable(w.cfg); err != nil {
		t.Fatal(err)
	}
	return w
}

// serve starts a server on the world's home, as `acpmux-tui server` does
// (its harnesses recorded and given a parent-death signal), and returns
// once it answers: after it has dealt with what an earlier server left.
func (w *world) serve() *rig {
	t := w.t
	t.Helper()
	store, err := sessions.OpenStore(w.home)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(w.log, nil))
	records := NewRecords(store.Home(), log)
	m := mux.New(mux.Options{
		Store: store, Table: w.table, Config: w.cfg, Logger: log, Grace: 2 * time.Second, BackoffBase: time.Millisecond,
		Started: records.Started, Ended: records.Ended, ParentDeathSignal: syscall.SIGKILL,
	})
	ready := make(chan struct{})
	r := &rig{t: t, home: store.Home(), store: store, recFile: w.recFile, finished: make(chan struct{})}
	r.srv = newServer(Options{
		Store: store, Table: w.table, Config: w.cfg, Mux: m, Logger: log, Version: "test-1",
		IdleGrace: time.Hour, Ready: func() { close(ready) }, Records: records,
	})
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.err = r.srv.run(ctx); close(r.finished) }()
	select {
	case <-ready:
	case <-r.finished:
		t.Fatalf("server did not start: %v", r.err)
	case <-time.After(hangDeadline):
		t.Fatal("server did not start listening")
	}
	t.Cleanup(r.stop)
	return r
}

// crash leaves the agent home as a server killed with SIGKILL would: its
// records stay behind. The server runs in this process, so its harnesses
// are stopped for real; the next server finds the records of harnesses
// that have gone, as it does once the parent-death signal has done its
// work (survivors_test.go has harnesses that outlive it).
func (w *world) crash(r *rig) {
	w.t.Helper()
	r.srv.opt.Records.Flush()
	dir := filepath.Join(w.home, proto.RunningDir)
	saved := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			w.t.Fatal(err)
		}
		saved[e.Name()] = b
	}
	r.stop()
	for name, b := range saved {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
}

// writeRecords puts records in the home as a dead server left them.
func (w *world) writeRecords(recs ...runRecord) {
	w.t.Helper()
	dir := filepath.Join(w.home, proto.RunningDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	for _, rec := range recs {
		b, err := json.Marshal(rec)
		if err != nil {
			w.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rec.Chat+".json"), b, 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
}

// recorded returns the chats that have a record in the home, sorted.
func (w *world) recorded() []string {
	w.t.Helper()
	ents, err := os.ReadDir(filepath.Join(w.home, proto.RunningDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.t.Fatal(err)
	}
	var ids []string
	for _, e := range ents {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".json"))
	}
	return ids
}

func (w *world) create(harnessName string, dirs []string) string {
	w.t.Helper()
	m, err := w.store.Create(sessions.NewChat{Harness: harnessName, AdditionalDirectories: dirs})
	if err != nil {
		w.t.Fatal(err)
	}
	return m.ID
}

// starts returns the start records of one chat's harness, oldest first.
func (w *world) starts(chat string) []startrecord.Record {
	w.t.Helper()
	recs, err := startrecord.Read(w.recFile)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []startrecord.Record
	for _, r := range recs {
		if id, _ := r.Getenv(chatEnv); id == chat {
			out = append(out, r)
		}
	}
	return out
}

// waitStarts waits for n starts of a chat's harness.
func (w *world) waitStarts(chat string, n int) []startrecord.Record {
	w.t.Helper()
	var recs []startrecord.Record
	waitFor(w.t, "a start of chat "+chat, func() bool {
		recs = w.starts(chat)
		return len(recs) >= n
	})
	return recs
}

// received returns the params of each request the ACP fake received with
// that method.
func (w *world) received(method string) []map[string]json.RawMessage {
	w.t.Helper()
	b, err := os.ReadFile(w.wire)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.t.Fatal(err)
	}
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var msg struct {
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.Method == method {
			out = append(out, msg.Params)
		}
	}
	return out
}

// statuses returns each chat's status as list answers it.
func statuses(c *wire) map[string]string {
	var list proto.ListResult
	c.ok(proto.MethodList, nil, &list)
	out := map[string]string{}
	for _, c := range list.Chats {
		out[c.ID] = c.Status
	}
	return out
}

// TestRecordsFollowTheHarnesses: a harness is recorded as it starts (mode
// 0600, in a 0700 folder, naming its process and start time in this boot)
// and its record goes when it is stopped on purpose, exits by itself or
// fails for good; an orderly end of the server leaves none.
func TestRecordsFollowTheHarnesses(t *testing.T) {
	w := newWorld(t, false)
	r := w.serve()
	c := r.dial()
	shell, quit, crash := w.create("shell", nil), w.create("quit", nil), w.create("crash", nil)

	c.ok(proto.MethodStart, proto.ChatParams{ID: shell}, nil)
	start := w.waitStarts(shell, 1)[0]
	path := filepath.Join(w.home, proto.RunningDir, shell+".json")
	waitFor(t, "the record of the harness", func() bool { _, err := os.Stat(path); return err == nil })
	fi, _ := os.Stat(path)
	dir, _ := os.Stat(filepath.Dir(path))
	if fi.Mode().Perm() != 0o600 || dir.Mode().Perm() != 0o700 {
		t.Fatalf("record %v in a folder %v, want 0600 in 0700", fi.Mode(), dir.Mode())
	}
	b, _ := os.ReadFile(path)
	var rec runRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	ticks, _ := processStartTicks(start.Pid)
	if rec.Version != 1 || rec.Chat != shell || rec.Pid != start.Pid || rec.Pgid != start.Pgid || rec.StartTicks != ticks ||
		rec.BootID == "" || rec.BootID != readBootID() || rec.ServerPid != os.Getpid() || rec.Started.IsZero() {
		t.Fatalf("record %+v, want pid %d pgid %d start %d", rec, start.Pid, start.Pgid, ticks)
	}

	c.ok(proto.MethodStop, proto.ChatParams{ID: shell}, nil)
	r.srv.opt.Records.Flush()
	if got := w.recorded(); len(got) != 0 {
		t.Fatalf("after a stop on purpose: records %v", got)
	}

	c.ok(proto.MethodStart, proto.ChatParams{ID: quit}, nil)
	c.ok(proto.MethodStart, proto.ChatParams{ID: crash}, nil)
	waitFor(t, "one chat to exit and the other to fail", func() bool {
		st := statuses(c)
		return st[quit] == "exited" && st[crash] == "failed"
	})
	r.srv.opt.Records.Flush()
	if got := w.recorded(); len(got) != 0 {
		t.Fatalf("after harnesses ended by themselves: records %v", got)
	}

	c.ok(proto.MethodStart, proto.ChatParams{ID: shell}, nil)
	w.waitStarts(shell, 2)
	r.stop()
	if got := w.recorded(); len(got) != 0 {
		t.Fatalf("after the server's orderly end: records %v", got)
	}
}

// TestReviveResumesEachChat: the chats running when a server died are
// started again by the next server, before it answers, each with every
// stored folder and its conversation: Claude Code with --resume, the ACP
// agent with session/load. A chat stopped on purpose and one whose
// harness exited by itself are left stopped.
func TestReviveResumesEachChat(t *testing.T) {
	w := newWorld(t, true)
	r := w.serve()
	c := r.dial()
	dirs := r.folders(2)
	claude, agent := w.create("claude", dirs), w.create("agent", dirs)
	stopped, quit := w.create("shell", nil), w.create("quit", nil)
	for _, id := range []string{claude, agent, stopped, quit} {
		c.ok(proto.MethodStart, proto.ChatParams{ID: id}, nil)
	}
	first := w.waitStarts(claude, 1)[0]
	waitFor(t, "the ACP session to be stored", func() bool {
		m, err := w.store.Load(agent)
		return err == nil && m.AgentSessionID != ""
	})
	// Its start recorded before it is stopped: a harness killed before it
	// wrote its record would look as if it had never started.
	w.waitStarts(stopped, 1)
	c.ok(proto.MethodStop, proto.ChatParams{ID: stopped}, nil)
	waitFor(t, "the quitting harness to exit", func() bool { return statuses(c)[quit] == "exited" })
	r.srv.opt.Records.Flush()
	if got := w.recorded(); !slices.Equal(got, sortedIDs(claude, agent)) {
		t.Fatalf("records %v, want %v", got, sortedIDs(claude, agent))
	}
	w.crash(r)

	r2 := w.serve()
	st := statuses(r2.dial())
	if !live(st[claude]) || !live(st[agent]) || st[stopped] != "stopped" || st[quit] != "stopped" {
		t.Fatalf("after the restart: %v", st)
	}
	meta, _ := w.store.Load(claude)
	again := w.waitStarts(claude, 2)[1]
	wantArgv := []string{"--resume", meta.AgentSessionID, "--add-dir", dirs[0], "--add-dir", dirs[1]}
	if meta.AgentSessionID == "" || !slices.Equal(again.Argv[1:], wantArgv) || again.Pid == first.Pid {
		t.Fatalf("claude started again with %q (first %q), want %q", again.Argv, first.Argv, wantArgv)
	}
	session, _ := w.store.Load(agent)
	waitFor(t, "session/load", func() bool { return len(w.received("session/load")) == 1 })
	load := w.received("session/load")[0]
	var sid string
	var got []string
	json.Unmarshal(load["sessionId"], &sid)
	json.Unmarshal(load["additionalDirectories"], &got)
	if sid != session.AgentSessionID || !slices.Equal(got, dirs) {
		t.Fatalf("session/load of %q with %q, want %q with %q", sid, got, session.AgentSessionID, dirs)
	}
	if len(w.starts(stopped)) != 1 || len(w.starts(quit)) != 1 {
		t.Fatal("a chat that was not running was started again")
	}
}

// TestReviveLeavesAChatWhoseFolderHasGone: a chat that was running when
// the server died, and one of whose folders has gone since, is not started:
// the next server logs why, the chat shows the refusal naming the folder,
// and its record goes, so the server after does not try again.
func TestReviveLeavesAChatWhoseFolderHasGone(t *testing.T) {
	w := newWorld(t, false)
	r := w.serve()
	dirs := r.folders(2)
	id := w.create("shell", dirs)
	r.dial().ok(proto.MethodStart, proto.ChatParams{ID: id}, nil)
	w.waitStarts(id, 1)
	w.crash(r)
	if err := os.Remove(dirs[1]); err != nil {
		t.Fatal(err)
	}

	r2 := w.serve()
	st := r2.srv.opt.Mux.State(id)
	if st.Status.Live() || !strings.Contains(st.Reason, dirs[1]) {
		t.Fatalf("state %v %q, want a refusal naming %s", st.Status, st.Reason, dirs[1])
	}
	if !strings.Contains(w.log.String(), "chat not started again") {
		t.Fatalf("the log does not say so:\n%s", w.log)
	}
	r2.srv.opt.Records.Flush()
	if got := w.recorded(); len(got) != 0 {
		t.Fatalf("records %v", got)
	}
	if n := len(w.starts(id)); n != 1 {
		t.Fatalf("%d starts", n)
	}
}

// TestReviveDropsWhatItCannotUse: a record from another boot (its process
// still runs: it is not touched), the record of a chat removed since, a
// temp file of a writer that was killed, and files that are not records
// start nothing and are all removed.
func TestReviveDropsWhatItCannotUse(t *testing.T) {
	w := newWorld(t, false)
	id := w.create("shell", nil)
	bystander := spawnSurvivor(t, "echo", id)
	bystander.waitMembers(1)
	otherBoot := bystander.record(id)
	otherBoot.BootID = "0f1e2d3c-another-boot"
	removed := bystander.record("gone1")
	removed.Pid, removed.Pgid = 1<<22-1, 1<<22-1
	w.writeRecords(otherBoot, removed)
	dir := filepath.Join(w.home, proto.RunningDir)
	for name, data := range map[string]string{
		"." + id + ".json.tmp-123": "{", "notes.txt": "hello", "big.json": strings.Repeat(" ", maxRecordBytes+1) + "{}",
		"bad.json": `{"version":1,"chat":"bad","pid":1,"pgid":1}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	r := w.serve()
	if st := statuses(r.dial()); st[id] != "stopped" {
		t.Fatalf("status %v", st)
	}
	if !bystander.alive() {
		t.Fatal("a process named by a record from another boot was ended")
	}
	r.srv.opt.Records.Flush()
	if got := w.recorded(); len(got) != 0 {
		t.Fatalf("left in %s: %v", proto.RunningDir, got)
	}
}

func sortedIDs(ids ...string) []string {
	slices.Sort(ids)
	return ids
}
