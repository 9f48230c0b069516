package chatsvc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/testharness/gitenv"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// world is an agent home, a config the test may change between calls, and
// a fake of what runs the chats.
type world struct {
	t     *testing.T
	root  string
	store *sessions.Store
	cfg   atomic.Pointer[config.Config]
	live  *fakeLive
	svc   *Service
}

// fakeLive is Live, counting what it is asked.
type fakeLive struct {
	said, told, forgot atomic.Int32
	transcript         []proto.Entry
	tellErr            error
}

func (l *fakeLive) Said(id string, maxBytes int) ([]proto.Entry, []string) {
	l.said.Add(1)
	return l.transcript, nil
}
func (l *fakeLive) FoldersChanged(id string) error { l.told.Add(1); return l.tellErr }
func (l *fakeLive) Forget(id string) error         { l.forgot.Add(1); return nil }

func newWorld(t *testing.T) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, root: root, live: &fakeLive{}}
	if w.store, err = sessions.OpenStore(filepath.Join(root, "agent")); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.DefaultHarness = "shell"
	cfg.Harness = map[string]config.HarnessConfig{"acpish": {Command: "/bin/true", Transport: harness.TransportACP}}
	w.cfg.Store(cfg)
	table := func() *harness.Table {
		tbl, err := harness.NewTable(w.cfg.Load())
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	w.svc = New(Options{Store: w.store, Config: w.cfg.Load, Table: table, Getenv: func(string) string { return "" }, Live: w.live})
	return w
}

// dir makes a folder under the world's root.
func (w *world) dir(rel string) string {
	w.t.Helper()
	p := filepath.Join(w.root, rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// repo makes a git repository with one commit; it skips the test when
// there is no git.
func (w *world) repo(rel string) string {
	w.t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		w.t.Skip("git is not installed")
	}
	gitenv.Set(w.t)
	dir := w.dir(rel)
	for _, argv := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "first"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, argv...)...).CombinedOutput(); err != nil {
			w.t.Fatalf("git %v: %v\n%s", argv, err, out)
		}
	}
	return dir
}

// TestRefusals: what the service refuses, it refuses as outside input
// (IsRefusal: -32602 on the wire, exit 2 on the command line), with the
// reason, and nothing is made.
func TestRefusals(t *testing.T) {
	w := newWorld(t)
	plain := w.dir("plain")
	parent, err := w.svc.Create(sessions.NewChat{Name: "parent"})
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	for _, tc := range []struct {
		what string
		do   func() error
		says string
	}{
		{"an unknown harness", func() error { _, err := w.svc.Create(sessions.NewChat{Harness: "nonesuch"}); return err }, `unknown harness "nonesuch" (known: `},
		{"a relative cwd", func() error { _, err := w.svc.Create(sessions.NewChat{Cwd: "rel"}); return err }, `cwd "rel": `},
		{"a cwd in the agent home", func() error { _, err := w.svc.Create(sessions.NewChat{Cwd: w.store.Home()}); return err }, `cwd "` + w.store.Home() + `": `},
		{"a name of two lines", func() error { _, err := w.svc.Create(sessions.NewChat{Name: "a\nb"}); return err }, "control character"},
		{"a missing folder", func() error {
			_, err := w.svc.Create(sessions.NewChat{AdditionalDirectories: []string{plain + "/gone"}})
			return err
		}, "does not exist"},
		{"a worktree with no project", func() error { _, err := w.svc.Create(sessions.NewChat{Worktree: &yes}); return err }, "no project folder"},
		{"a base without a worktree", func() error {
			_, err := w.svc.Create(sessions.NewChat{Cwd: plain, WorktreeBase: "main"})
			return err
		}, "--base goes with --worktree"},
		{"a base with worktree false", func() error {
			_, err := w.svc.Create(sessions.NewChat{Cwd: plain, Worktree: &no, WorktreeBase: "main"})
			return err
		}, "--base goes with --worktree"},
		{"a derivation of no origin", func() error { _, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: "twin"}); return err }, `origin must be "fork", "side" or "handoff", not "twin"`},
		{"a handoff to no harness", func() error {
			_, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginHandoff})
			return err
		}, "a handoff needs the harness"},
		{"a handoff to an unknown harness", func() error {
			_, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginHandoff, Harness: "nonesuch"})
			return err
		}, `unknown harness "nonesuch"`},
		{"a fork's worktree and a cwd of its own", func() error {
			_, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork, Cwd: plain, Worktree: &yes})
			return err
		}, "do not go together"},
		{"a capsule too big", func() error {
			_, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginSide, Capsule: strings.Repeat("x", sessions.MaxCapsuleBytes+1)})
			return err
		}, "capsule: "},
		{"a fork's name of two lines", func() error {
			_, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork, Name: "a\nb"})
			return err
		}, "control character"},
		{"a folder to take out that is no path", func() error { _, err := w.svc.RemoveFolders(parent.ID, []string{"rel"}); return err }, "not an absolute path"},
		{"a cwd to validate that is no path", func() error { _, _, err := w.svc.Validate("rel", nil, nil); return err }, `cwd "rel": `},
	} {
		err := tc.do()
		if err == nil || !IsRefusal(err) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v (a refusal: %v), want a refusal saying %q", tc.what, err, IsRefusal(err), tc.says)
		}
	}
	if list, _ := w.store.List(); len(list) != 1 {
		t.Errorf("refusals left %d chats, want the parent alone", len(list))
	}
	if _, ok := AsRefusal(errors.New("plain")); ok || IsRefusal(sessions.ErrNotFound) {
		t.Error("a plain error taken for a refusal")
	}
}

// TestCreateTakesTheConfigInEffect: each call reads the config in effect
// then (a server reads its file again while it runs): the default harness
// and the worktree default of one call are not the next one's.
func TestCreateTakesTheConfigInEffect(t *testing.T) {
	w := newWorld(t)
	repo := w.repo("repo")
	m, err := w.svc.Create(sessions.NewChat{Cwd: repo})
	if err != nil || m.Harness != "shell" || m.Worktree != nil {
		t.Fatalf("first chat: %+v, %v; want shell, no worktree", m, err)
	}
	cfg := *w.cfg.Load()
	cfg.DefaultHarness = "acpish"
	cfg.Worktree = config.WorktreeConfig{Default: true, Dir: w.dir("trees")}
	w.cfg.Store(&cfg)
	m, err = w.svc.Create(sessions.NewChat{Cwd: repo, WorktreeBase: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Harness != "acpish" || m.Worktree == nil || m.Worktree.Path != filepath.Join(cfg.Worktree.Dir, m.ID) || m.Cwd != m.Worktree.Path || m.Worktree.BaseRef != "main" {
		t.Fatalf("second chat: %+v (worktree %+v); want acpish in a worktree under %s from main", m, m.Worktree, cfg.Worktree.Dir)
	}
	// The default does not apply outside a repository, and asks nothing
	// of git there but whether it is one.
	if m, err = w.svc.Create(sessions.NewChat{Cwd: w.dir("plain")}); err != nil || m.Worktree != nil {
		t.Fatalf("a plain folder with the default on: %+v, %v", m, err)
	}
}

// TestForkOfAWorktreeChat: every fork of a worktree chat in its project
// gets a worktree of its own, from the parent's branch, unless asked for
// none; a side chat shares the parent's; a fork asked for one of a plain
// chat in a repository gets one from its folder's HEAD; a failed worktree
// leaves no chat.
func TestForkOfAWorktreeChat(t *testing.T) {
	w := newWorld(t)
	repo := w.repo("repo")
	yes, no := true, false
	parent, err := w.svc.Create(sessions.NewChat{Cwd: repo, Worktree: &yes, Name: "parent"})
	if err != nil {
		t.Fatal(err)
	}
	fork, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	if fork.Worktree == nil || fork.Worktree.Path == parent.Worktree.Path || fork.Worktree.BaseRef != parent.Worktree.Branch || fork.Cwd != fork.Worktree.Path {
		t.Fatalf("fork: %+v, want a worktree of its own from %s", fork.Worktree, parent.Worktree.Branch)
	}
	shared, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork, Worktree: &no})
	if err != nil || shared.Worktree != nil || shared.Cwd != parent.Cwd {
		t.Fatalf("fork with worktree false: %+v, %v; want the parent's folder", shared, err)
	}
	side, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginSide})
	if err != nil || side.Worktree != nil || side.Cwd != parent.Cwd {
		t.Fatalf("side chat: %+v, %v; want the parent's folder", side, err)
	}
	plain, err := w.svc.Create(sessions.NewChat{Cwd: repo})
	if err != nil {
		t.Fatal(err)
	}
	asked, err := w.svc.Derive(plain.ID, sessions.Derivation{Origin: sessions.OriginFork, Worktree: &yes})
	if err != nil || asked.Worktree == nil || asked.Worktree.Repo != repo {
		t.Fatalf("fork asked for a worktree of a plain chat: %+v, %v", asked, err)
	}
	// The parent's worktree gone: the fork is refused, saying how to fork
	// without one, and nothing is made.
	before, _ := w.store.List()
	if err := os.RemoveAll(parent.Worktree.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork}); err == nil || !strings.Contains(err.Error(), "--worktree=false") {
		t.Fatalf("fork of a chat whose worktree is gone: %v", err)
	}
	if after, _ := w.store.List(); len(after) != len(before) {
		t.Fatalf("a refused fork left a chat: %d chats, were %d", len(after), len(before))
	}
}

// TestCapsules: a handoff, and a fork of a harness that may not branch a
// conversation, carry a capsule of what Live says was said, written when
// asked (MakeCapsule) or given; a side chat carries none, and Live is not
// even asked for it.
func TestCapsules(t *testing.T) {
	w := newWorld(t)
	w.live.transcript = []proto.Entry{{Kind: proto.EntryUser, Text: "remember the parser"}, {Kind: proto.EntryAgent, Text: "noted"}}
	parent, err := w.svc.Create(sessions.NewChat{Harness: "acpish", Name: "parent"})
	if err != nil {
		t.Fatal(err)
	}
	text, err := w.svc.Capsule(parent.ID, sessions.Derivation{Origin: sessions.OriginSide})
	if err != nil || text != "" || w.live.said.Load() != 0 {
		t.Fatalf("a side chat's capsule: %q, %v (Live asked %d times)", text, err, w.live.said.Load())
	}
	fork, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork, MakeCapsule: true})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := w.store.Capsule(fork.ID)
	if err != nil || !fork.Capsule || !strings.Contains(got, "remember the parser") {
		t.Fatalf("the fork's capsule: %q (marked %v), %v", got, fork.Capsule, err)
	}
	given, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginHandoff, Harness: "shell", Capsule: "as edited", MakeCapsule: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := w.store.Capsule(given.ID); got != "as edited" {
		t.Fatalf("a handoff given its capsule carries %q", got)
	}
	none, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork})
	if err != nil || none.Capsule {
		t.Fatalf("a fork not asked to make a capsule: %+v, %v", none, err)
	}
}

// TestChangesToldOrSaidUntold: a change of folders or files is stored and
// told to the running harness; when it cannot be told, it stands, and the
// error says so.
func TestChangesToldOrSaidUntold(t *testing.T) {
	w := newWorld(t)
	lib := w.dir("lib")
	m, err := w.svc.Create(sessions.NewChat{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.AddFolders(m.ID, []string{lib}); err != nil || w.live.told.Load() != 1 {
		t.Fatalf("add folders: %v, told %d times", err, w.live.told.Load())
	}
	w.live.tellErr = errors.New("the mux is busy")
	got, err := w.svc.RemoveFolders(m.ID, []string{lib})
	var ue *UntoldError
	if !errors.As(err, &ue) || got == nil || len(got.AdditionalDirectories) != 0 || IsRefusal(err) {
		t.Fatalf("remove folders, untold: %+v, %v", got, err)
	}
	if stored, _ := w.store.Load(m.ID); len(stored.AdditionalDirectories) != 0 {
		t.Fatalf("an untold change was not stored: %v", stored.AdditionalDirectories)
	}
}

// TestRemove: a chat's removal forgets it in Live first; a dry run, or a
// refused removal (its own folder has files), forgets nothing.
func TestRemove(t *testing.T) {
	w := newWorld(t)
	m, err := w.svc.Create(sessions.NewChat{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.Cwd, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := w.svc.Remove(proto.RemoveParams{ID: m.ID, DryRun: true})
	if err != nil || rep.Removed || rep.Home != m.Cwd || rep.Files != 1 || w.live.forgot.Load() != 0 {
		t.Fatalf("dry run: %+v, %v (forgot %d)", rep, err, w.live.forgot.Load())
	}
	if _, err := w.svc.Remove(proto.RemoveParams{ID: m.ID}); err == nil || w.live.forgot.Load() != 0 {
		t.Fatalf("removal of a home with files: %v (forgot %d)", err, w.live.forgot.Load())
	}
	if rep, err = w.svc.Remove(proto.RemoveParams{ID: m.ID, Force: true}); err != nil || !rep.Removed || w.live.forgot.Load() != 1 {
		t.Fatalf("forced removal: %+v, %v (forgot %d)", rep, err, w.live.forgot.Load())
	}
	if _, err := w.svc.Remove(proto.RemoveParams{ID: m.ID}); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("removal of a chat gone: %v", err)
	}
}

// TestRemoveForcedPastAWorktreeGitCannotCheck: a worktree chat whose
// worktree git cannot check for work (the commit it was made from is no
// commit git knows) is refused unforced, naming the failure, and removed
// when forced, as the command line always did: a forced removal does not
// ask what it would lose.
func TestRemoveForcedPastAWorktreeGitCannotCheck(t *testing.T) {
	w := newWorld(t)
	repo := w.repo("repo")
	yes := true
	m, err := w.svc.Create(sessions.NewChat{Cwd: repo, Worktree: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.Update(m.ID, func(c *sessions.Meta) error {
		c.Worktree.Base = strings.Repeat("0", 40)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Remove(proto.RemoveParams{ID: m.ID}); err == nil || !strings.Contains(err.Error(), "check worktree") {
		t.Fatalf("an unforced removal past a worktree git cannot check: %v", err)
	}
	if rep, err := w.svc.Remove(proto.RemoveParams{ID: m.ID, Force: true}); err != nil || !rep.Removed {
		t.Fatalf("forced removal: %+v, %v", rep, err)
	}
	if _, err := os.Stat(m.Worktree.Path); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
}

// TestSandboxChoice: a new chat is sandboxed as asked, else as its
// harness's `sandbox`, else the config's; a fork, side chat and handoff
// keep their parent's choice unless asked otherwise.
func TestSandboxChoice(t *testing.T) {
	w := newWorld(t)
	on, off := true, false
	sandboxed := func(n sessions.NewChat) bool {
		t.Helper()
		m, err := w.svc.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		return m.Sandbox
	}
	if sandboxed(sessions.NewChat{}) || !sandboxed(sessions.NewChat{Sandbox: &on}) {
		t.Error("with no config: as asked, else off")
	}
	cfg := *w.cfg.Load()
	cfg.Sandbox = true
	cfg.Harness = map[string]config.HarnessConfig{"acpish": {Command: "/bin/true", Transport: harness.TransportACP, Sandbox: &off}}
	w.cfg.Store(&cfg)
	if !sandboxed(sessions.NewChat{}) || sandboxed(sessions.NewChat{Sandbox: &off}) || sandboxed(sessions.NewChat{Harness: "acpish"}) {
		t.Error("the config's sandbox, the harness's own over it, the ask over both")
	}
	parent, err := w.svc.Create(sessions.NewChat{Sandbox: &on})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []sessions.Derivation{
		{Origin: sessions.OriginFork}, {Origin: sessions.OriginSide}, {Origin: sessions.OriginHandoff, Harness: "acpish"},
	} {
		m, err := w.svc.Derive(parent.ID, d)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Sandbox {
			t.Errorf("a %s of a sandboxed chat is not sandboxed", d.Origin)
		}
	}
	m, err := w.svc.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork, Sandbox: &off})
	if err != nil || m.Sandbox {
		t.Errorf("a fork asked without a sandbox: %+v, %v", m, err)
	}
}
