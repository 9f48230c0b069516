package server

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// chatsNoticeDeadline bounds the wait for a chatsChanged notice. The
// watcher sends it chatsSettle after the change (or within
// chatsPollEvery when polling); the rest is margin for a loaded machine.
const chatsNoticeDeadline = 15 * time.Second

// nextChatsChanged returns the ids of the next chatsChanged notice the
// watcher reads, failing with what if none comes in time.
func (w *wire) nextChatsChanged(what string) []string {
	w.t.Helper()
	end := time.Now().Add(chatsNoticeDeadline)
	for {
		w.nc.SetReadDeadline(end)
		line, err := w.r.ReadBytes('\n')
		if err != nil {
			w.t.Fatalf("no chatsChanged notice within %v after %s: %v", chatsNoticeDeadline, what, err)
		}
		var n struct {
			Method string                   `json:"method"`
			Params proto.ChatsChangedParams `json:"params"`
		}
		if json.Unmarshal(line, &n) == nil && n.Method == proto.NotifyChatsChanged {
			return n.Params.IDs
		}
	}
}

// TestChatFileChangesReachWatchers: each way a chat file changes on disk
// (written in place, copied over with cp, created under a new name,
// renamed into place, removed, written broken) reaches a watching client as
// a chatsChanged notice naming the chat, through inotify and through the
// poll that stands in when inotify cannot be had. A write of the same
// bytes is no change and is not told; a broken file is left as it is.
func TestChatFileChangesReachWatchers(t *testing.T) {
	for _, mode := range []struct {
		name string
		poll bool
	}{{"inotify", false}, {"poll", true}} {
		t.Run(mode.name, func(t *testing.T) {
			r := newRig(t, rigOpt{server: func(s *Server) { s.pollChats = mode.poll }})
			a, err := r.store.Create(sessions.NewChat{Name: "alpha", Harness: "shell"})
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.store.Create(sessions.NewChat{Name: "beta", Harness: "shell"})
			if err != nil {
				t.Fatal(err)
			}
			w := r.dial()
			w.ok(proto.MethodWatch, proto.SizeParams{}, nil)
			chats := filepath.Join(r.home, "chats")
			// The two files above were made as the watch began: they
			// are told or already known once a later file is told.
			sync, err := r.store.Create(sessions.NewChat{Name: "sync", Harness: "shell"})
			if err != nil {
				t.Fatal(err)
			}
			for !slices.Contains(w.nextChatsChanged("a new chat made by the store"), sync.ID) {
			}
			renamed := func(id, name string) []byte {
				t.Helper()
				m, err := r.store.Load(id)
				if err != nil {
					t.Fatal(err)
				}
				m.Name = name
				data, err := m.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				return data
			}
			expect := func(what string, ids ...string) {
				t.Helper()
				got := w.nextChatsChanged(what)
				if !slices.Equal(got, ids) {
					t.Fatalf("after %s: chatsChanged %q, want %q", what, got, ids)
				}
			}
			mustList := func(id, name string) {
				t.Helper()
				l, err := r.store.List()
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range l {
					if e.ID == id && e.Meta != nil && e.Meta.Name == name {
						return
					}
				}
				t.Fatalf("chat %s is not listed as %q: %+v", id, name, l)
			}

			// In place: the same file, truncated and written.
			inPlace := renamed(a.ID, "alpha in place")
			f, err := os.OpenFile(r.store.ChatPath(a.ID), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(inPlace); err != nil {
				t.Fatal(err)
			}
			f.Close()
			expect("an in-place write", a.ID)
			mustList(a.ID, "alpha in place")

			// Copied over with cp.
			src := filepath.Join(t.TempDir(), "copy.toml")
			if err := os.WriteFile(src, renamed(b.ID, "beta copied"), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("cp", src, r.store.ChatPath(b.ID)).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
			expect("a copy over the file", b.ID)
			mustList(b.ID, "beta copied")

			// The same bytes again: no change. The next notice names
			// only what did change.
			same, _ := os.ReadFile(r.store.ChatPath(a.ID))
			if err := os.WriteFile(r.store.ChatPath(a.ID), same, 0o644); err != nil {
				t.Fatal(err)
			}
			// A new file under a new name.
			data := strings.ReplaceAll(string(renamed(a.ID, "gamma")), a.ID, "gamma1")
			if err := os.WriteFile(filepath.Join(chats, "gamma1.toml"), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			expect("a new file (after a write of the same bytes)", "gamma1")
			mustList("gamma1", "gamma")

			// Renamed into place, as an editor saves.
			tmp := filepath.Join(chats, "alpha.swp")
			if err := os.WriteFile(tmp, renamed(a.ID, "alpha renamed"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, r.store.ChatPath(a.ID)); err != nil {
				t.Fatal(err)
			}
			expect("a rename into place", a.ID)
			mustList(a.ID, "alpha renamed")

			// Broken by hand: told, listed broken, never rewritten.
			broken := []byte("version = 1\nid = [unclosed\n")
			if err := os.WriteFile(r.store.ChatPath(b.ID), broken, 0o644); err != nil {
				t.Fatal(err)
			}
			expect("a broken write", b.ID)
			if got, _ := os.ReadFile(r.store.ChatPath(b.ID)); string(got) != string(broken) {
				t.Fatalf("the broken file was rewritten: %q", got)
			}

			// Removed.
			if err := os.Remove(filepath.Join(chats, "gamma1.toml")); err != nil {
				t.Fatal(err)
			}
			expect("a removal", "gamma1")
		})
	}
}

// TestHandEditedFoldersReachRunningChat: the folders of a running chat
// edited by hand in its file are taken as add-dir's are: pending while the
// harness runs with the old list (the fake shell cannot resume, so until
// its restart). A rewrite by the server that leaves the folders as they
// were (a start's folders_via) marks nothing.
func TestHandEditedFoldersReachRunningChat(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "edited"}, &c)
	watcher := r.dial() // notices interleave with answers: a connection of its own
	watcher.ok(proto.MethodWatch, proto.SizeParams{}, nil)
	w.ok(proto.MethodStart, proto.ChatParams{ID: c.ID}, nil)
	r.waitRecords(1)
	waitFor(t, "the start's own rewrite of the chat file to be told", func() bool {
		return slices.Contains(watcher.nextChatsChanged("the chat's start"), c.ID)
	})
	if st := r.srv.opt.Mux.State(c.ID); st.PendingDirectories != nil {
		t.Fatalf("the server's own rewrite marked folders pending: %q", st.PendingDirectories)
	}
	dir := r.folders(1)[0]
	m, err := r.store.Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	m.AdditionalDirectories = []string{dir}
	data, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.store.ChatPath(c.ID), data, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the folder edited by hand to show pending on the running chat", func() bool {
		return slices.Equal(r.srv.opt.Mux.State(c.ID).PendingDirectories, []string{dir})
	})
}

// TestHandEditedFilesReachRunningChat: the single files of a running chat
// edited by hand in its file are taken as add-file's are: pending while the
// harness runs with the old list, and the chat's JSON says so
// (pendingFiles), with filesVia the way its harness takes them.
func TestHandEditedFilesReachRunningChat(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "edited"}, &c)
	if c.FilesVia != "none" {
		t.Fatalf("a chat without files: filesVia %q, want none", c.FilesVia)
	}
	watcher := r.dial()
	watcher.ok(proto.MethodWatch, proto.SizeParams{}, nil)
	w.ok(proto.MethodStart, proto.ChatParams{ID: c.ID}, nil)
	r.waitRecords(1)
	waitFor(t, "the start's own rewrite of the chat file to be told", func() bool {
		return slices.Contains(watcher.nextChatsChanged("the chat's start"), c.ID)
	})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "spec.md")
	if err := os.WriteFile(file, []byte("spec"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := r.store.Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	m.AdditionalFiles = []string{file}
	data, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.store.ChatPath(c.ID), data, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the file edited by hand to show pending on the running chat", func() bool {
		return slices.Equal(r.srv.opt.Mux.State(c.ID).PendingFiles, []string{file})
	})
	var list proto.ListResult
	w.ok(proto.MethodList, nil, &list)
	for _, got := range list.Chats {
		if got.ID != c.ID {
			continue
		}
		if !slices.Equal(got.PendingFiles, []string{file}) || got.FilesVia != "env" || !slices.Equal(got.AdditionalFiles, []string{file}) {
			t.Fatalf("chat JSON: pendingFiles %q filesVia %q additionalFiles %q", got.PendingFiles, got.FilesVia, got.AdditionalFiles)
		}
		return
	}
	t.Fatalf("chat %s not listed", c.ID)
}

// TestFilesViaBeforeTheFirstStart: before a chat's first start its JSON
// says how its harness takes single files (the table's expectation):
// Claude Code a note in its system prompt (flag), an ACP agent resource
// links (acp), a shell the environment (env).
func TestFilesViaBeforeTheFirstStart(t *testing.T) {
	r := newRig(t, rigOpt{})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "spec.md")
	if err := os.WriteFile(file, []byte("spec"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for name, via := range map[string]string{"claude": "flag", "opencode": "acp", "shell": "env"} {
		m, err := r.store.Create(sessions.NewChat{Harness: name, AdditionalFiles: []string{file}})
		if err != nil {
			t.Fatal(err)
		}
		want[m.ID] = via
	}
	w := r.dial()
	var list proto.ListResult
	w.ok(proto.MethodList, nil, &list)
	for _, c := range list.Chats {
		if c.FilesVia != want[c.ID] {
			t.Errorf("%s chat: filesVia %q, want %q", c.Harness, c.FilesVia, want[c.ID])
		}
	}
	if len(list.Chats) != len(want) {
		t.Fatalf("%d chats listed, want %d", len(list.Chats), len(want))
	}
}
