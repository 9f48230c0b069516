package transfer

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/bundle"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestImportGuardRefuses: each crafted chat.toml or root that must refuse
// the whole import is refused with a message naming what was wrong, and
// nothing is written: the agent home is as it was, no staging folder left.
func TestImportGuardRefuses(t *testing.T) {
	w := newWorld(t)
	many := make([]string, 100000)
	for i := range many {
		many[i] = "/d"
	}
	cases := []struct {
		name   string
		chat   string
		roots  []string
		man    bundle.Manifest
		wantIn []string
	}{
		{name: "relative folder", chat: chatTOML("k3x9q2", "x", "shell", w.app, []string{"rel/lib"}, nil),
			wantIn: []string{`additional_directories[0] "rel/lib"`, "not an absolute path"}},
		{name: "relative file", chat: chatTOML("k3x9q2", "x", "shell", w.app, nil, []string{"notes.md"}),
			wantIn: []string{`additional_files[0] "notes.md"`, "not an absolute path"}},
		{name: "relative cwd", chat: chatTOML("k3x9q2", "x", "shell", "src/app", nil, nil),
			wantIn: []string{`cwd "src/app"`, "not an absolute path"}},
		{name: "NUL in a folder", chat: chatTOML("k3x9q2", "x", "shell", w.app, []string{w.lib + "\x00/etc"}, nil),
			wantIn: []string{"additional_directories[0]", "NUL"}},
		{name: "raw NUL in chat.toml", chat: chatTOML("k3x9q2", "x", "shell", w.app, nil, nil) + "junk = \"\x00\"\n",
			wantIn: []string{"chat.toml", "NUL byte"}},
		{name: "100,000 folders", chat: chatTOML("k3x9q2", "x", "shell", w.app, many, nil),
			wantIn: []string{"100000 additional_directories, at most 64"}},
		{name: "id with a slash", chat: chatTOML("../k3x9q2", "x", "shell", w.app, nil, nil),
			wantIn: []string{"bad id", "../k3x9q2"}},
		{name: "id with dots", chat: chatTOML("k3..q2", "x", "shell", w.app, nil, nil),
			wantIn: []string{"bad id", "k3..q2"}},
		{name: "session id that climbs", chat: chatTOML("k3x9q2", "x", "claude", w.app, nil, nil) + "agent_session_id = \"../../x\"\n",
			man: bundle.Manifest{Harness: "claude"}, wantIn: []string{"agent_session_id", `../../x`, "file names"}},
		{name: "cwd outside every root", chat: chatTOML("k3x9q2", "x", "shell", w.outside, nil, nil),
			wantIn: []string{"the chat's folder", w.outside, "is outside every --root"}},
		{name: "cwd through a link that leaves", chat: chatTOML("k3x9q2", "x", "shell", filepath.Join(w.src, "away"), nil, nil),
			wantIn: []string{"the chat's folder", "is outside every --root (it resolves to"}},
		{name: "cwd missing here", chat: chatTOML("k3x9q2", "x", "shell", filepath.Join(w.src, "gone"), nil, nil),
			wantIn: []string{"the chat's folder", "does not exist on this host"}},
		{name: "cwd the agent home", chat: chatTOML("k3x9q2", "x", "shell", w.home, nil, nil), roots: []string{w.root},
			wantIn: []string{"the chat's folder", "inside the agent home"}},
		{name: "root missing", chat: chatTOML("k3x9q2", "x", "shell", w.app, nil, nil), roots: []string{filepath.Join(w.root, "nope")},
			wantIn: []string{"--root", "nope", "does not exist"}},
		{name: "root relative", chat: chatTOML("k3x9q2", "x", "shell", w.app, nil, nil), roots: []string{"src"},
			wantIn: []string{`--root "src"`, "not an absolute path"}},
		{name: "harness unlike the manifest's", chat: chatTOML("k3x9q2", "x", "shell", w.app, nil, nil), man: bundle.Manifest{Harness: "claude"},
			wantIn: []string{"harness", "shell", "claude"}},
		{name: "id unlike the manifest's", chat: chatTOML("k3x9q2", "x", "shell", w.app, nil, nil), man: bundle.Manifest{ChatID: "other"},
			wantIn: []string{"chat.toml is chat k3x9q2", "other"}},
	}
	if err := os.Symlink(w.outside, filepath.Join(w.src, "away")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := w.snapshot()
			man := tc.man
			if man.ChatID == "" {
				man.ChatID = "k3x9q2"
			}
			if man.Harness == "" {
				man.Harness = "shell"
			}
			roots := tc.roots
			if roots == nil {
				roots = []string{w.src}
			}
			data := craft(t, man, tc.chat)
			_, err := Import(bytes.NewReader(data), w.importOptions(roots...))
			if _, ok := AsRefusal(err); !ok {
				t.Fatalf("import: %v; want a refusal", err)
			}
			for _, s := range tc.wantIn {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("refusal %q does not say %q", err, s)
				}
			}
			if after := w.snapshot(); !slices.Equal(before, after) {
				t.Errorf("the agent home changed:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// TestImportGuardDrops: folders and files the chat may not see here are
// dropped, each by name with the reason, and the rest kept canonical; the
// chat is created with only what was kept.
func TestImportGuardDrops(t *testing.T) {
	w := newWorld(t)
	leave := filepath.Join(w.src, "leave")
	if err := os.Symlink(w.outside, leave); err != nil {
		t.Fatal(err)
	}
	inLink := filepath.Join(w.outside, "in")
	if err := os.Symlink(w.lib, inLink); err != nil {
		t.Fatal(err)
	}
	spec := w.file("src/specs/api.md", "api\n")
	secret := w.file("outside/secret.txt", "no\n")
	fileLink := filepath.Join(w.src, "secret-link.txt")
	if err := os.Symlink(secret, fileLink); err != nil {
		t.Fatal(err)
	}
	agentChats := filepath.Join(w.home, "chats")
	dirs := []string{
		w.lib, // kept
		filepath.Join(w.app, "..", "..", "outside"), // climbs out: dropped
		leave,                        // a link that leaves the root: dropped
		"/",                          // the whole disk: dropped
		w.root,                       // the root's parent: dropped
		filepath.Join(w.src, "gone"), // not here: dropped
		inLink,                       // outside, but resolves inside: kept, canonical (once)
		spec,                         // a file given as a folder: dropped
		agentChats,                   // the agent home: dropped by the validator
		w.app,                        // the chat's own folder: dropped by the validator
	}
	files := []string{spec, secret, fileLink, filepath.Join(w.src, "specs"), filepath.Join(w.src, "nope.md")}
	chat := chatTOML("k3x9q2", "parser", "shell", w.app, dirs, files)
	data := craft(t, bundle.Manifest{ChatID: "k3x9q2", Harness: "shell"}, chat)
	// The agent home's folder is inside a root here, so only the
	// validator stands between it and the chat.
	rep, err := Import(bytes.NewReader(data), w.importOptions(w.src, w.home))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Kept, []string{w.lib}) {
		t.Errorf("kept %q, want only %s", rep.Kept, w.lib)
	}
	wantDropped := map[string]string{
		dirs[1]: "is outside every --root", leave: "is outside every --root (it resolves to",
		"/": "is outside every --root", w.root: "is outside every --root",
		dirs[5]: "does not exist on this host", spec: "is not a folder on this host",
		agentChats: "agent home", w.app: "own folder",
	}
	checkDropped(t, "folder", rep.Dropped, wantDropped)
	if !slices.Equal(rep.KeptFiles, []string{spec}) {
		t.Errorf("kept files %q, want only %s", rep.KeptFiles, spec)
	}
	checkDropped(t, "file", rep.DroppedFiles, map[string]string{
		secret: "is outside every --root", fileLink: "is outside every --root (it resolves to",
		files[3]: "is a folder, not a file", files[4]: "does not exist on this host",
	})
	m, err := w.store.Load(rep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.AdditionalDirectories, []string{w.lib}) || !slices.Equal(m.AdditionalFiles, []string{spec}) {
		t.Errorf("stored folders %q files %q", m.AdditionalDirectories, m.AdditionalFiles)
	}
	if m.Cwd != w.app || m.Origin != sessions.OriginImport || m.Parent != "k3x9q2" || m.Name != "parser · import" {
		t.Errorf("stored chat %+v", m)
	}
	if _, err := os.Stat(filepath.Join(w.home, StagingDir)); !os.IsNotExist(err) {
		t.Errorf("staging left behind: %v", err)
	}
}

func checkDropped(t *testing.T, what string, got []proto.Dropped, want map[string]string) {
	t.Helper()
	seen := map[string]bool{}
	for _, d := range got {
		reason, ok := want[d.Path]
		if !ok {
			t.Errorf("%s %s dropped (%s), want it kept", what, d.Path, d.Reason)
			continue
		}
		if !strings.Contains(d.Reason, reason) {
			t.Errorf("%s %s dropped for %q, want %q", what, d.Path, d.Reason, reason)
		}
		seen[d.Path] = true
	}
	for p := range want {
		if !seen[p] {
			t.Errorf("%s %s was not dropped", what, p)
		}
	}
}

// TestImportNameAndIDStayText: a name with "/" and ".." is a name, never
// a path: the chat is made under a fresh id in chats/, its name derived
// from the exported one, and nothing is written anywhere else.
func TestImportNameAndIDStayText(t *testing.T) {
	w := newWorld(t)
	name := "../../../etc/passwd"
	data := craft(t, bundle.Manifest{ChatID: "k3x9q2", Harness: "shell"}, chatTOML("k3x9q2", name, "shell", w.app, nil, nil))
	rep, err := Import(bytes.NewReader(data), w.importOptions(w.src))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Name != name+" · import" || !sessions.ValidID(rep.ID) || rep.ID == "k3x9q2" {
		t.Errorf("report %+v", rep)
	}
	got, _ := filepath.Glob(filepath.Join(w.home, "chats", "*.toml"))
	if len(got) != 1 || got[0] != w.store.ChatPath(rep.ID) {
		t.Errorf("chats/ holds %q, want only %s", got, w.store.ChatPath(rep.ID))
	}
	if des, _ := os.ReadDir(w.root); len(des) != 4 { // agent, user, src, outside
		t.Errorf("the world's root holds %d entries, want 4", len(des))
	}
}

// TestImportDryRunWritesNothing: a dry run reports what would be kept and
// dropped, and leaves the agent home as it was.
func TestImportDryRunWritesNothing(t *testing.T) {
	w := newWorld(t)
	data := craft(t, bundle.Manifest{ChatID: "k3x9q2", Harness: "shell"}, chatTOML("k3x9q2", "p", "shell", w.app, []string{w.lib, w.outside}, nil))
	before := w.snapshot()
	opt := w.importOptions(w.src)
	opt.DryRun = true
	rep, err := Import(bytes.NewReader(data), opt)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.DryRun || rep.ID != "" || !slices.Equal(rep.Kept, []string{w.lib}) || len(rep.Dropped) != 1 || rep.Dropped[0].Path != w.outside {
		t.Errorf("report %+v", rep)
	}
	if after := w.snapshot(); !slices.Equal(before, after) {
		t.Errorf("a dry run changed the agent home:\nbefore %q\nafter  %q", before, after)
	}
}

// TestImportNoProjectGetsAFreshHome: a chat that ran in its own home
// folder gets a fresh one here, whatever path its file names.
func TestImportNoProjectGetsAFreshHome(t *testing.T) {
	w := newWorld(t)
	data := craft(t, bundle.Manifest{ChatID: "k3x9q2", Harness: "shell", NoProject: true},
		chatTOML("k3x9q2", "p", "shell", "/elsewhere/agent/homes/k3x9q2", []string{w.lib}, nil))
	rep, err := Import(bytes.NewReader(data), w.importOptions(w.src))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.CwdFresh || rep.Cwd != w.store.HomeDir(rep.ID) {
		t.Errorf("cwd %q fresh %v, want %s", rep.Cwd, rep.CwdFresh, w.store.HomeDir(rep.ID))
	}
	if fi, err := os.Stat(rep.Cwd); err != nil || !fi.IsDir() {
		t.Errorf("fresh home: %v", err)
	}
}

// TestImportStaleStagingRemoved: a staging folder left by an import that
// was killed is removed by the next import; one of a live process stays.
func TestImportStaleStagingRemoved(t *testing.T) {
	w := newWorld(t)
	stale := filepath.Join(w.home, StagingDir, "999999999-dead")
	live := filepath.Join(w.home, StagingDir, "1-init")
	for _, d := range []string{stale, live} {
		if err := os.MkdirAll(filepath.Join(d, "conversation"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	data := craft(t, bundle.Manifest{ChatID: "k3x9q2", Harness: "shell"}, chatTOML("k3x9q2", "p", "shell", w.app, nil, nil))
	if _, err := Import(bytes.NewReader(data), w.importOptions(w.src)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale staging folder still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live process's staging folder was removed: %v", err)
	}
}
