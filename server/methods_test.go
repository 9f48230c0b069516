package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

func live(status string) bool {
	return status == "starting" || status == "running" || status == "asking" || status == "waiting"
}

// waitGroupGone waits until no process is left in a process group. A
// harness's orphaned child is killed with its group, then reaped by init:
// until then it is a zombie that still counts as a member.
func waitGroupGone(t testing.TB, pgid int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("process group %d to empty", pgid), func() bool {
		return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
	})
}

// processAlive reports whether pid is a live process (a zombie is dead).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// TestMethodsOverARealConnection drives a chat through every method over
// the socket and checks what the harness really received.
func TestMethodsOverARealConnection(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()

	var hello proto.HelloResult
	w.ok(proto.MethodHello, map[string]any{}, &hello)
	if hello.Version != "test-1" || hello.Pid != os.Getpid() {
		t.Fatalf("hello = %+v", hello)
	}
	rep := w.call(proto.MethodList, nil)
	if string(rep.Result) != `{"chats":[]}` {
		t.Fatalf("list of an empty home = %s", rep.Result)
	}

	dirs := r.folders(3)
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "wire chat", AdditionalDirectories: []string{dirs[0], dirs[1] + "/", dirs[0]}}, &c)
	if c.Name != "wire chat" || c.Harness != "shell" || c.Status != "stopped" || c.FoldersVia != harness.ViaEnv {
		t.Fatalf("new: %+v", c)
	}
	if !slices.Equal(c.AdditionalDirectories, dirs[:2]) {
		t.Fatalf("new: folders %q, want %q", c.AdditionalDirectories, dirs[:2])
	}
	if m, err := r.store.Load(c.ID); err != nil || !slices.Equal(m.AdditionalDirectories, dirs[:2]) {
		t.Fatalf("stored after new: %v %v", m, err)
	}

	w.ok(proto.MethodSetDirectories, map[string]any{"id": c.ID, "additionalDirectories": []string{dirs[2], dirs[0]}}, &c)
	want := []string{dirs[2], dirs[0]}
	if !slices.Equal(c.AdditionalDirectories, want) {
		t.Fatalf("setDirectories: %q, want %q", c.AdditionalDirectories, want)
	}
	if m, err := r.store.Load(c.ID); err != nil || !slices.Equal(m.AdditionalDirectories, want) {
		t.Fatalf("stored after setDirectories: %v %v", m, err)
	}

	w.ok(proto.MethodStart, proto.ChatParams{ID: c.ID, Cols: 100, Rows: 30}, &c)
	if !live(c.Status) {
		t.Fatalf("start: status %q", c.Status)
	}
	first := r.waitRecords(1)[0]
	if first.Cwd != c.Cwd || first.Cols != 100 || first.Rows != 30 || first.Pgid != first.Pid {
		t.Fatalf("the harness got cwd %q (want %q), %dx%d, pgid %d pid %d", first.Cwd, c.Cwd, first.Cols, first.Rows, first.Pgid, first.Pid)
	}
	if v, _ := first.Getenv(harness.EnvAdditionalDirectories); v != strings.Join(want, ":") {
		t.Fatalf("the harness got folders %q, want %q", v, strings.Join(want, ":"))
	}

	var list proto.ListResult
	w.ok(proto.MethodList, nil, &list)
	if len(list.Chats) != 1 || list.Chats[0].ID != c.ID || !live(list.Chats[0].Status) {
		t.Fatalf("list while running: %+v", list.Chats)
	}

	w.ok(proto.MethodRestart, proto.ChatParams{ID: c.ID}, &c)
	second := r.waitRecords(2)[1]
	if second.Pid == first.Pid || !live(c.Status) {
		t.Fatalf("restart: pid %d (was %d), status %q", second.Pid, first.Pid, c.Status)
	}
	if processAlive(first.Pid) {
		t.Fatalf("the first harness %d outlived the restart", first.Pid)
	}
	waitGroupGone(t, first.Pgid)
	if v, _ := second.Getenv(harness.EnvAdditionalDirectories); v != strings.Join(want, ":") || second.Cols != 100 {
		t.Fatalf("the restarted harness got folders %q, %d cols", v, second.Cols)
	}

	w.ok(proto.MethodStop, proto.ChatParams{ID: c.ID}, &c)
	if c.Status != "stopped" {
		t.Fatalf("stop: status %q", c.Status)
	}
	if processAlive(second.Pid) {
		t.Fatalf("the harness %d outlived stop", second.Pid)
	}
	waitGroupGone(t, second.Pgid)
	w.ok(proto.MethodList, nil, &list)
	if list.Chats[0].Status != "stopped" {
		t.Fatalf("list after stop: %q", list.Chats[0].Status)
	}
}

// TestFolderRefusalsNameEveryEntry sends a relative, a missing and a NUL
// entry to new and to setDirectories: each is named in a -32602, and
// nothing changes on disk.
func TestFolderRefusalsNameEveryEntry(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	good := r.folders(1)[0]
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{AdditionalDirectories: []string{good}}, &c)
	before := r.chatFile(c.ID)

	missing := filepath.Join(good, "not there")
	bad := []string{"relative/dir", missing, "/tmp/nul\x00byte", good}
	wantReasons := []string{"not an absolute path", "does not exist", "contains a NUL byte"}
	check := func(method string, e *wireError) {
		t.Helper()
		var d folderData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatalf("%s: data %s: %v", method, e.Data, err)
		}
		if d.Count != len(bad) || len(d.Entries) != 3 {
			t.Fatalf("%s: data %s", method, e.Data)
		}
		for i, p := range d.Entries {
			if p.Index != i || p.Path != bad[i] || !strings.Contains(p.Reason, wantReasons[i]) {
				t.Errorf("%s: entry %d = %+v, want index %d, path %q, reason %q", method, i, p, i, bad[i], wantReasons[i])
			}
		}
	}

	for _, tc := range []struct {
		name   string
		method string
		params any
	}{
		{"new", proto.MethodNew, map[string]any{"additionalDirectories": bad}},
		{"setDirectories", proto.MethodSetDirectories, map[string]any{"id": c.ID, "additionalDirectories": bad}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := r.chatFiles()
			check(tc.method, w.fails(proto.CodeInvalidParams, tc.method, tc.params))
			if after := r.chatFiles(); !slices.Equal(after, files) {
				t.Fatalf("chat files changed: %q → %q", files, after)
			}
			if after := r.chatFile(c.ID); after != before {
				t.Fatalf("the chat's file changed:\n%s\n→\n%s", before, after)
			}
		})
	}
	// Each bad entry alone is refused too.
	for i, entry := range bad[:3] {
		e := w.fails(proto.CodeInvalidParams, proto.MethodSetDirectories, map[string]any{"id": c.ID, "additionalDirectories": []string{entry}})
		var d folderData
		json.Unmarshal(e.Data, &d)
		if len(d.Entries) != 1 || d.Entries[0].Path != entry || !strings.Contains(d.Entries[0].Reason, wantReasons[i]) {
			t.Errorf("alone, %q: %s", entry, e.Data)
		}
	}
	if after := r.chatFile(c.ID); after != before {
		t.Fatalf("the chat's file changed:\n%s\n→\n%s", before, after)
	}
}

// TestInvalidParams covers the other refusals of well-formed calls.
func TestInvalidParams(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	var c proto.ChatJSON
	w.ok(proto.MethodNew, nil, &c)
	for _, tc := range []struct {
		method string
		params any
		code   int
	}{
		{proto.MethodStart, map[string]any{"id": 7}, proto.CodeInvalidParams},
		{proto.MethodStart, map[string]any{}, proto.CodeInvalidParams},
		{proto.MethodStart, []any{c.ID}, proto.CodeInvalidParams},
		{proto.MethodStart, map[string]any{"id": c.ID, "cols": -1}, proto.CodeInvalidParams},
		{proto.MethodStart, map[string]any{"id": c.ID, "rows": proto.MaxRows + 1}, proto.CodeInvalidParams},
		{proto.MethodStart, map[string]any{"id": "nosuchchat"}, proto.CodeChatNotFound},
		{proto.MethodStop, map[string]any{"id": "../../etc/passwd"}, proto.CodeChatNotFound},
		{proto.MethodSetDirectories, map[string]any{"id": c.ID}, proto.CodeInvalidParams},
		{proto.MethodSetDirectories, map[string]any{"id": c.ID, "additionalDirectories": "/tmp"}, proto.CodeInvalidParams},
		{proto.MethodSetDirectories, map[string]any{"id": "nosuchchat", "additionalDirectories": []string{}}, proto.CodeChatNotFound},
		{proto.MethodNew, map[string]any{"harness": "nosuch"}, proto.CodeInvalidParams},
		{proto.MethodNew, map[string]any{"cwd": "relative"}, proto.CodeInvalidParams},
		{proto.MethodNew, map[string]any{"cwd": "/no/such/folder"}, proto.CodeInvalidParams},
		{proto.MethodNew, map[string]any{"name": "two\nlines"}, proto.CodeInvalidParams},
		{proto.MethodHello, "text", proto.CodeInvalidRequest},
	} {
		rep := w.call(tc.method, tc.params)
		if rep.Error == nil || rep.Error.Code != tc.code {
			t.Errorf("%s %v: %+v %s, want code %d", tc.method, tc.params, rep.Error, rep.Result, tc.code)
		}
	}
	if n := len(r.chatFiles()); n != 1 {
		t.Fatalf("%d chat files after refusals, want 1", n)
	}
}

// TestStartRefusedWhenAStoredFolderHasGone: the start is refused with the
// folder named, and nothing runs.
func TestStartRefusedWhenAStoredFolderHasGone(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	dir := r.folders(1)[0]
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{AdditionalDirectories: []string{dir}}, &c)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	e := w.fails(proto.CodeFailed, proto.MethodStart, proto.ChatParams{ID: c.ID})
	if !strings.Contains(e.Message, dir) {
		t.Fatalf("refusal does not name the folder: %s %s", e.Message, e.Data)
	}
	if len(r.records()) != 0 {
		t.Fatal("a harness started")
	}
	if st := r.live(t, w, c.ID); st.Status != "failed" || !strings.Contains(st.Failed, dir) {
		t.Fatalf("after the refusal: %+v", st)
	}
	// M takes the gone folder out: the failure it caused goes with it.
	var gone proto.RemoveMissingResult
	w.ok(proto.MethodRemoveMissing, proto.IDParams{ID: c.ID}, &gone)
	if len(gone.Folders) != 1 || gone.Chat.Status != "stopped" || gone.Chat.Failed != "" {
		t.Fatalf("removeMissing answered %+v", gone)
	}
	if st := r.live(t, w, c.ID); st.Status != "stopped" || st.Failed != "" {
		t.Fatalf("after removeMissing: %+v", st)
	}
}

// live is chat id as _acpmux/live has it.
func (r *rig) live(t *testing.T, w *wire, id string) proto.LiveChat {
	t.Helper()
	var res proto.LiveResult
	w.ok(proto.MethodLive, struct{}{}, &res)
	for _, l := range res.Chats {
		if l.ID == id {
			return l
		}
	}
	return proto.LiveChat{ID: id, Status: "stopped"}
}

// TestSetDirectoriesOnARunningChat: the socket's setDirectories on a
// running chat stores the list at once and answers it pending: the shell
// fake starts fresh each time, so the change waits for a restart, which
// then gives it the new list; foldersChanged answers the same for a list a
// client stored itself.
func TestSetDirectoriesOnARunningChat(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	dirs := r.folders(2)
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{AdditionalDirectories: dirs[:1]}, &c)
	w.ok(proto.MethodStart, proto.ChatParams{ID: c.ID, Cols: 100, Rows: 30}, &c)
	first := r.waitRecords(1)[0]

	w.ok(proto.MethodSetDirectories, map[string]any{"id": c.ID, "additionalDirectories": dirs}, &c)
	if !slices.Equal(c.PendingDirectories, dirs) || !slices.Equal(c.AdditionalDirectories, dirs) {
		t.Fatalf("setDirectories on a running chat: %+v", c)
	}
	if m, err := r.store.Load(c.ID); err != nil || !slices.Equal(m.AdditionalDirectories, dirs) {
		t.Fatalf("not stored at once: %v %v", m, err)
	}
	if n := len(r.records()); n != 1 || !processAlive(first.Pid) {
		t.Fatalf("a harness that starts fresh was restarted: %d starts", n)
	}

	if _, err := r.store.Update(c.ID, func(m *sessions.Meta) error { m.AdditionalDirectories = dirs[1:]; return nil }); err != nil {
		t.Fatal(err)
	}
	w.ok(proto.MethodFoldersChanged, proto.ChatParams{ID: c.ID}, &c)
	if !slices.Equal(c.PendingDirectories, dirs[1:]) {
		t.Fatalf("foldersChanged: pending %q", c.PendingDirectories)
	}

	var after proto.ChatJSON // absent fields must not keep old values
	w.ok(proto.MethodRestart, proto.ChatParams{ID: c.ID}, &after)
	second := r.waitRecords(2)[1]
	if v, _ := second.Getenv(harness.EnvAdditionalDirectories); v != dirs[1] || after.PendingDirectories != nil {
		t.Fatalf("after the restart: folders %q, pending %q", v, after.PendingDirectories)
	}
}
