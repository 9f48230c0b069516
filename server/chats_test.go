package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// refusedEntries decodes a folder refusal's entries.
func refusedEntries(t *testing.T, e *wireError) []proto.FolderProblem {
	t.Helper()
	var d folderData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		t.Fatalf("refusal data %s: %v", e.Data, err)
	}
	return d.Entries
}

// TestChatAndDerive: _acpmux/chat answers one chat as list does (noProject
// set for a chat in its own folder); _acpmux/derive makes a fork, a side
// chat and a handoff as the command line does (folders carried, names
// derived, the capsule stored), and refuses bad params with -32602
// creating nothing.
func TestChatAndDerive(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	dirs := r.folders(2)
	var parent proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "zap", AdditionalDirectories: dirs}, &parent)

	var got proto.ChatJSON
	w.ok(proto.MethodChat, proto.IDParams{ID: parent.ID}, &got)
	if got.ID != parent.ID || !got.NoProject || got.Cwd != r.store.HomeDir(parent.ID) || !slices.Equal(got.AdditionalDirectories, dirs) {
		t.Fatalf("chat: %+v", got)
	}
	w.fails(proto.CodeChatNotFound, proto.MethodChat, proto.IDParams{ID: "nosuch"})

	var fork proto.ChatJSON
	w.ok(proto.MethodDerive, proto.DeriveParams{ID: parent.ID, Origin: sessions.OriginFork}, &fork)
	if fork.Parent != parent.ID || fork.Origin != "fork" || fork.Name != "zap · fork" || !fork.NoProject || fork.Cwd == parent.Cwd ||
		!slices.Equal(fork.AdditionalDirectories, dirs) || fork.Status != "stopped" {
		t.Fatalf("fork: %+v", fork)
	}
	// A side chat in a project that is one of the parent's folders: that
	// folder is its own, dropped from those it carries.
	var side proto.ChatJSON
	w.ok(proto.MethodDerive, proto.DeriveParams{ID: parent.ID, Origin: sessions.OriginSide, Cwd: dirs[0], Name: "aside"}, &side)
	if side.Name != "aside" || side.Cwd != dirs[0] || side.NoProject || !slices.Equal(side.AdditionalDirectories, dirs[1:]) {
		t.Fatalf("side: %+v", side)
	}
	capsule := "what was said in zap\n"
	var hand proto.ChatJSON
	w.ok(proto.MethodDerive, proto.DeriveParams{ID: parent.ID, Origin: sessions.OriginHandoff, Harness: "child", Capsule: capsule}, &hand)
	if hand.Harness != "child" || hand.Origin != "handoff" || !hand.HasCapsule || hand.Name != "zap → child" {
		t.Fatalf("handoff: %+v", hand)
	}
	if text, sent, err := r.store.Capsule(hand.ID); err != nil || sent || text != capsule {
		t.Fatalf("stored capsule %q sent %v: %v", text, sent, err)
	}

	before := len(r.chatFiles())
	for _, bad := range []proto.DeriveParams{
		{Origin: sessions.OriginFork},
		{ID: parent.ID, Origin: "import"},
		{ID: parent.ID, Origin: sessions.OriginHandoff},
		{ID: parent.ID, Origin: sessions.OriginHandoff, Harness: "nosuch"},
		{ID: parent.ID, Origin: sessions.OriginFork, Cwd: "rel/dir"},
		{ID: parent.ID, Origin: sessions.OriginFork, Cwd: filepath.Join(dirs[0], "gone")},
		{ID: parent.ID, Origin: sessions.OriginFork, Name: "two\nlines"},
		{ID: parent.ID, Origin: sessions.OriginFork, Capsule: strings.Repeat("x", sessions.MaxCapsuleBytes+1)},
		{ID: parent.ID, Origin: sessions.OriginFork, Capsule: "a\x00b"},
	} {
		w.fails(proto.CodeInvalidParams, proto.MethodDerive, bad)
	}
	w.fails(proto.CodeChatNotFound, proto.MethodDerive, proto.DeriveParams{ID: "nosuch", Origin: sessions.OriginFork})
	if after := len(r.chatFiles()); after != before {
		t.Fatalf("refused derivations left %d chat files, want %d", after, before)
	}
	// A folder of the parent that has gone refuses the derivation with
	// the reason: it is never dropped silently.
	if err := os.Remove(dirs[1]); err != nil {
		t.Fatal(err)
	}
	e := w.fails(proto.CodeInvalidParams, proto.MethodDerive, proto.DeriveParams{ID: parent.ID, Origin: sessions.OriginFork})
	if es := refusedEntries(t, e); len(es) != 1 || es[0].Path != dirs[1] {
		t.Fatalf("derive with a folder gone: %s %s", e.Message, e.Data)
	}
}

// TestRemove: a dry run says what the chat's own folder holds and changes
// nothing; a folder with files refuses a removal without force, stopping
// nothing; with force the harness is stopped and the chat and its folder
// go.
func TestRemove(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "doomed"}, &c)
	if err := os.WriteFile(filepath.Join(c.Cwd, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.ok(proto.MethodStart, proto.ChatParams{ID: c.ID}, &c)
	rec := r.waitRecords(1)[0]

	var rep proto.RemoveReport
	w.ok(proto.MethodRemove, proto.RemoveParams{ID: c.ID, DryRun: true}, &rep)
	if rep.Home != c.Cwd || rep.Files != 1 || rep.Removed {
		t.Fatalf("dry run: %+v", rep)
	}
	e := w.fails(proto.CodeFailed, proto.MethodRemove, proto.RemoveParams{ID: c.ID})
	if !strings.Contains(e.Message, "not empty") {
		t.Fatalf("removal of a folder with files: %s", e.Message)
	}
	if !processAlive(rec.Pid) {
		t.Fatal("a refused removal stopped the harness")
	}
	if _, err := r.store.Load(c.ID); err != nil {
		t.Fatalf("a refused removal: %v", err)
	}
	w.ok(proto.MethodRemove, proto.RemoveParams{ID: c.ID, Force: true}, &rep)
	if !rep.Removed {
		t.Fatalf("forced removal: %+v", rep)
	}
	waitGroupGone(t, rec.Pgid)
	if _, err := os.Stat(c.Cwd); !os.IsNotExist(err) {
		t.Fatalf("its own folder is still there: %v", err)
	}
	if _, err := r.store.Load(c.ID); err == nil {
		t.Fatal("the chat file is still there")
	}
	w.fails(proto.CodeChatNotFound, proto.MethodRemove, proto.RemoveParams{ID: c.ID})
	w.fails(proto.CodeInvalidParams, proto.MethodRemove, proto.RemoveParams{})
	w.fails(proto.CodeInvalidParams, proto.MethodRemove, map[string]any{"id": "x", "force": "yes"})
}

// TestRemoveMissing drops exactly the folders and files that have gone,
// and says which.
func TestRemoveMissing(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	dirs := r.folders(3)
	spec := filepath.Join(dirs[2], "spec.md")
	if err := os.WriteFile(spec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{AdditionalDirectories: dirs[:2], AdditionalFiles: []string{spec}}, &c)
	var res proto.RemoveMissingResult
	w.ok(proto.MethodRemoveMissing, proto.IDParams{ID: c.ID}, &res)
	if len(res.Folders) != 0 || len(res.Files) != 0 || !slices.Equal(res.Chat.AdditionalDirectories, dirs[:2]) {
		t.Fatalf("nothing missing: %+v", res)
	}
	if err := os.Remove(dirs[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(spec); err != nil {
		t.Fatal(err)
	}
	w.ok(proto.MethodRemoveMissing, proto.IDParams{ID: c.ID}, &res)
	if len(res.Folders) != 1 || res.Folders[0].Path != dirs[0] || len(res.Files) != 1 || res.Files[0].Path != spec ||
		!slices.Equal(res.Chat.AdditionalDirectories, dirs[1:2]) || len(res.Chat.AdditionalFiles) != 0 {
		t.Fatalf("two missing: %+v", res)
	}
	if m, err := r.store.Load(c.ID); err != nil || !slices.Equal(m.AdditionalDirectories, dirs[1:2]) || len(m.AdditionalFiles) != 0 {
		t.Fatalf("stored: %+v %v", m, err)
	}
	w.fails(proto.CodeChatNotFound, proto.MethodRemoveMissing, proto.IDParams{ID: "nosuch"})
}

// TestAddRemoveFolders: addFolders goes through the shared validator (a
// relative entry is -32602 naming it, nothing changes); removeFolders takes
// out a folder that has gone, and refuses entries that are no absolute
// paths.
func TestAddRemoveFolders(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	dirs := r.folders(3)
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{AdditionalDirectories: dirs[:1]}, &c)

	e := w.fails(proto.CodeInvalidParams, proto.MethodAddFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: []string{dirs[1], "rel"}})
	if es := refusedEntries(t, e); len(es) != 1 || es[0].Index != 1 || es[0].Path != "rel" {
		t.Fatalf("relative entry: %s", e.Data)
	}
	w.fails(proto.CodeInvalidParams, proto.MethodAddFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: []string{filepath.Join(r.home, "chats")}})
	w.fails(proto.CodeInvalidParams, proto.MethodAddFolders, map[string]any{"id": c.ID})
	if m, _ := r.store.Load(c.ID); !slices.Equal(m.AdditionalDirectories, dirs[:1]) {
		t.Fatalf("a refusal changed the folders: %q", m.AdditionalDirectories)
	}
	w.ok(proto.MethodAddFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: []string{dirs[1], dirs[2] + "/"}}, &c)
	if !slices.Equal(c.AdditionalDirectories, dirs) {
		t.Fatalf("added: %q", c.AdditionalDirectories)
	}

	if err := os.Remove(dirs[1]); err != nil {
		t.Fatal(err)
	}
	e = w.fails(proto.CodeInvalidParams, proto.MethodRemoveFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: []string{dirs[1], "", "rel"}})
	if es := refusedEntries(t, e); len(es) != 2 || es[0].Index != 1 || es[1].Index != 2 {
		t.Fatalf("bad entries to take out: %s", e.Data)
	}
	w.fails(proto.CodeInvalidParams, proto.MethodRemoveFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: slices.Repeat([]string{"/x"}, sessions.MaxFolders+1)})
	w.ok(proto.MethodRemoveFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: []string{dirs[1]}}, &c)
	if want := []string{dirs[0], dirs[2]}; !slices.Equal(c.AdditionalDirectories, want) {
		t.Fatalf("after taking out the folder gone: %q, want %q", c.AdditionalDirectories, want)
	}
	w.fails(proto.CodeFailed, proto.MethodRemoveFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: []string{dirs[1]}})
}

// TestValidate answers canonical lists (a symlink resolved, a duplicate
// once) or one -32602 naming every bad entry of both lists; nothing is
// stored.
func TestValidate(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	dirs := r.folders(2)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dirs[1], link); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dirs[0], "spec.md")
	if err := os.WriteFile(spec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var res proto.ValidateResult
	w.ok(proto.MethodValidate, proto.ValidateParams{AdditionalDirectories: []string{dirs[0], link, dirs[1]}, AdditionalFiles: []string{spec}}, &res)
	if !slices.Equal(res.AdditionalDirectories, dirs) || !slices.Equal(res.AdditionalFiles, []string{spec}) {
		t.Fatalf("validate: %+v", res)
	}
	w.ok(proto.MethodValidate, proto.ValidateParams{}, &res)
	if res.AdditionalDirectories == nil || res.AdditionalFiles == nil || len(res.AdditionalDirectories)+len(res.AdditionalFiles) != 0 {
		t.Fatalf("empty lists: %+v", res)
	}

	e := w.fails(proto.CodeInvalidParams, proto.MethodValidate, proto.ValidateParams{Cwd: dirs[0],
		AdditionalDirectories: []string{dirs[0], r.home, "rel"}, AdditionalFiles: []string{dirs[1]}})
	es := refusedEntries(t, e)
	if len(es) != 4 || es[3].Field != proto.FieldFiles {
		t.Fatalf("refusal: %s", e.Data)
	}
	w.fails(proto.CodeInvalidParams, proto.MethodValidate, proto.ValidateParams{Cwd: "rel"})
	if files := r.chatFiles(); len(files) != 0 {
		t.Fatalf("validate stored %q", files)
	}
}
