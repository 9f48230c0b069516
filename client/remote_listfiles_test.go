package client

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/sessions"
)

// TestRemoteListFromFilesEqualsServer: a Remote that reads the chat files
// itself (ReadFilesFrom, the TUI on the server's machine) lists the chats
// the server lists, field for field: a running chat with folders and a
// file, a fork with a capsule, a renamed chat and a broken chat file.
func TestRemoteListFromFilesEqualsServer(t *testing.T) {
	h, _ := remoteHome(t)
	asked := openRemote(t, h)
	side := t.TempDir()
	lib, notes, spec := filepath.Join(side, "lib"), filepath.Join(side, "notes"), filepath.Join(side, "spec.md")
	for _, d := range []string{lib, notes} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(spec, []byte("# spec\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := asked.CreateAndStart(sessions.NewChat{Harness: "fake", Name: "runs", AdditionalDirectories: []string{lib, notes}, AdditionalFiles: []string{spec}}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	waitRemote(t, asked, "the chat running", func() bool { return asked.State(run.ID).Status.Live() })
	// The baseline for review is written off the start's path, a moment
	// later; both sides must read the chat file after it.
	waitRemote(t, asked, "the running chat's baseline recorded", func() bool {
		e, err := asked.Chat(run.ID)
		return err == nil && e.Meta != nil && e.Meta.Baseline != nil
	})
	fork, err := asked.Derive(run.ID, sessions.Derivation{Origin: sessions.OriginFork, Capsule: "what the parent said"})
	if err != nil {
		t.Fatal(err)
	}
	quiet, err := asked.Create(sessions.NewChat{Harness: "acp", Name: "quiet"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := asked.Rename(quiet.ID, "renamed"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h, "chats", "zzzzzzzz.toml"), []byte("name = [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	store, err := sessions.OpenStore(h)
	if err != nil {
		t.Fatal(err)
	}
	read := openRemote(t, h)
	read.ReadFilesFrom(store)
	want, err := asked.List()
	if err != nil {
		t.Fatal(err)
	}
	got, err := read.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || len(want) != 4 {
		t.Fatalf("listed %d chats from the files, %d from the server; want 4 each", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if g.Meta != nil && w.Meta != nil && g.Meta.FilesVia == "" {
			// Before a chat's first start with files the server tells
			// the table's expectation; the TUI works it out itself then
			// (Model.refreshSelected).
			m := *w.Meta
			m.FilesVia = ""
			w.Meta = &m
		}
		if ws, gs := comparable(w), comparable(g); ws != gs {
			t.Errorf("chat %d:\n server %s\n files  %s", i, ws, gs)
		}
	}
	if got[3].Broken == nil || got[3].ID != "zzzzzzzz" {
		t.Fatalf("the broken chat file is not listed last, broken: %s", comparable(got[3]))
	}
	found := false
	for _, e := range got {
		found = found || e.ID == fork.ID && e.Meta != nil && e.Meta.Parent == run.ID && e.Meta.Capsule
	}
	if !found {
		t.Fatalf("the fork of %s with its capsule is not listed from the files", run.ID)
	}
}

// comparable is an entry with what the wire does not carry as it is made
// plain: the created time to its second (RFC 3339), the parse error as its
// text, the file's format version (the wire has none) and the baseline's
// value rather than its pointer.
func comparable(e sessions.Entry) string {
	broken := ""
	if e.Broken != nil {
		broken = e.Broken.Error()
	}
	var meta sessions.Meta
	baseline := "none"
	if e.Meta != nil {
		meta = *e.Meta
		meta.Created = meta.Created.Truncate(time.Second).UTC()
		meta.Version = 0
		if meta.Baseline != nil {
			baseline = fmt.Sprintf("%+v", *meta.Baseline)
		}
		meta.Baseline = nil
	}
	return fmt.Sprintf("%s broken=%q noProject=%v baseline=%s %+v", e.ID, broken, e.NoProject, baseline, meta)
}

// TestRemoteFilesAsksTheServer: Remote.Files and Router.Files (what the
// TUI's @ asks for a chat of another host) list the chat's files through
// its server, best match first, within the limit.
func TestRemoteFilesAsksTheServer(t *testing.T) {
	h, _ := remoteHome(t)
	r := openRemote(t, h)
	proj, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"src/parser.go", "src/lexer.go", "README.md"} {
		p := filepath.Join(proj, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chat, err := r.Create(sessions.NewChat{Harness: "acp", Name: "files", Cwd: proj})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Files(chat.ID, "pars", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) == 0 || res.Files[0].Path != filepath.Join(proj, "src/parser.go") || res.Files[0].Name != "src/parser.go" {
		t.Fatalf("files for pars: %+v", res)
	}
	rt := NewRouter(r, nil)
	defer rt.Close()
	all, err := rt.Files(chat.ID, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Files) != 2 || !all.Truncated {
		t.Fatalf("two of three files: %+v", all)
	}
	if _, err := rt.Files("nohost:"+chat.ID, "", 2); err == nil {
		t.Fatal("a chat of a host not configured was listed")
	}
}
