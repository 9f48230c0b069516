package transfer

import (
	"bytes"
	"fmt"
	"github.com/acpmux/acpmux-tui/chatsvc"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/bundle"
	"github.com/acpmux/acpmux-tui/sessions"
)

// world is one host for the transfer tests: a canonical temp folder with
// an agent home, a user's HOME, a root (src) holding a project and a
// folder, and a folder outside it.
type world struct {
	t                      *testing.T
	root, home, user       string
	src, app, lib, outside string
	store                  *sessions.Store
	table                  *harness.Table
	env                    map[string]string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, root: root, home: filepath.Join(root, "agent"), user: filepath.Join(root, "user"),
		src: filepath.Join(root, "src"), outside: filepath.Join(root, "outside")}
	w.app, w.lib = filepath.Join(w.src, "app"), filepath.Join(w.src, "lib")
	for _, d := range []string{w.user, w.app, w.lib, w.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if w.store, err = sessions.OpenStore(w.home); err != nil {
		t.Fatal(err)
	}
	if _, w.table, err = harness.Load(filepath.Join(root, "no-config.toml")); err != nil {
		t.Fatal(err)
	}
	w.env = map[string]string{"HOME": w.user}
	return w
}

func (w *world) getenv(k string) string { return w.env[k] }

func (w *world) importOptions(roots ...string) ImportOptions {
	chats := chatsvc.New(chatsvc.Options{Store: w.store, Table: func() *harness.Table { return w.table }, Getenv: w.getenv})
	return ImportOptions{Chats: chats, Table: w.table, Getenv: w.getenv, Roots: roots}
}

func (w *world) exportOptions() ExportOptions {
	return ExportOptions{Store: w.store, Table: w.table, Getenv: w.getenv, Version: "test"}
}

// file writes a file under the world's root and returns its path.
func (w *world) file(rel, text string) string {
	w.t.Helper()
	p := filepath.Join(w.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// snapshot lists every file and folder under the agent home, for "nothing
// was written" checks.
func (w *world) snapshot() []string {
	w.t.Helper()
	var out []string
	filepath.Walk(w.home, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !strings.HasSuffix(p, "/chats/.lock") {
			out = append(out, strings.TrimPrefix(p, w.home))
		}
		return nil
	})
	return out
}

// chatTOML is a chat file's text with the given folder and lists.
func chatTOML(id, name, harnessName, cwd string, dirs, files []string) string {
	q := func(ss []string) string {
		parts := make([]string, len(ss))
		for i, s := range ss {
			parts[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("version = 1\nid = %q\nname = %q\nharness = %q\ncwd = %q\nadditional_directories = %s\nadditional_files = %s\ncreated = 2026-11-30T22:00:00Z\n",
		id, name, harnessName, cwd, q(dirs), q(files))
}

// craft writes a bundle of the chat text chat, with the manifest m (its
// Members filled from the members given, chat.toml first) and the
// conversation members in order.
func craft(t *testing.T, m bundle.Manifest, chat string, members ...[2]string) []byte {
	t.Helper()
	if m.Format == 0 {
		m.Format = bundle.FormatVersion
	}
	if m.Exported.IsZero() {
		m.Exported = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	}
	if m.Conversation == "" {
		m.Conversation = bundle.KindNone
	}
	m.Members = []string{bundle.ChatName}
	for _, mem := range members {
		m.Members = append(m.Members, mem[0])
	}
	var buf bytes.Buffer
	bw, err := bundle.NewWriter(&buf, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := bw.Add(bundle.ChatName, int64(len(chat)), strings.NewReader(chat)); err != nil {
		t.Fatal(err)
	}
	for _, mem := range members {
		if err := bw.Add(mem[0], int64(len(mem[1])), strings.NewReader(mem[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
