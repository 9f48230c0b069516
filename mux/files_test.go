package mux

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// sharedFiles makes n files, each alone in a folder of its own beside a
// sibling that is not shared, and returns their canonical paths.
func sharedFiles(t *testing.T, names ...string) []string {
	t.Helper()
	out := make([]string, len(names))
	for i, name := range names {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		out[i] = filepath.Join(dir, name)
		if err := os.WriteFile(out[i], []byte("shared "+name), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sibling.txt"), []byte("not shared"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// setFiles stores a chat's single files as add-file or the picker does, and
// tells the mux.
func setFiles(t *testing.T, store *sessions.Store, m *Mux, id string, files []string) {
	t.Helper()
	if _, err := store.SetFiles(id, files); err != nil {
		t.Fatal(err)
	}
	if err := m.FoldersChanged(id); err != nil {
		t.Fatal(err)
	}
}

// TestPtyHarnessesGetFilesOnEveryStart: the exact argv and environment each
// pty kind receives for a chat's single files, at the first start and at a
// restart, and the way recorded in the chat file.
func TestPtyHarnessesGetFilesOnEveryStart(t *testing.T) {
	r := newRig(t, "echo", nil)
	dirs := r.folders(1)
	files := sharedFiles(t, "api spec.md", "notes.txt")
	r.mux.opt.Environ = func() []string { return append(os.Environ(), harness.EnvAdditionalFiles+"=/leaked") }
	for _, name := range []string{"claude", "gemini", "shell"} {
		t.Run(name, func(t *testing.T) {
			m, err := r.store.Create(sessions.NewChat{Harness: name, AdditionalDirectories: dirs, AdditionalFiles: files})
			if err != nil {
				t.Fatal(err)
			}
			before := len(r.records())
			if err := r.mux.Start(m.ID, 100, 30); err != nil {
				t.Fatal(err)
			}
			first := r.waitRecords(before + 1)[before]
			if err := r.mux.Restart(m.ID, 100, 30); err != nil {
				t.Fatal(err)
			}
			second := r.waitRecords(before + 2)[before+1]
			sid := r.loadMeta(m.ID).AgentSessionID
			for i, rec := range []record{first, second} {
				var want []string
				// The restart resumes what the first start began.
				session := []string{"--session-id", sid}
				if i == 1 && slices.Contains(rec.Argv, "--resume") {
					session = []string{"--resume", sid}
				}
				switch name {
				case "claude":
					want = append(append([]string{fakeHarness}, session...), "--append-system-prompt", harness.FilesNote(files), "--add-dir", dirs[0])
				case "gemini":
					want = append(append([]string{fakeHarness}, session...), "--include-directories", dirs[0])
				case "shell":
					want = []string{fakeHarness}
				}
				if !slices.Equal(rec.Argv, want) {
					t.Fatalf("start %d argv\n got %q\nwant %q", i+1, rec.Argv, want)
				}
				if v, _ := rec.Getenv(harness.EnvAdditionalFiles); v != strings.Join(files, ":") {
					t.Fatalf("start %d: %s=%q, want %q", i+1, harness.EnvAdditionalFiles, v, strings.Join(files, ":"))
				}
			}
			wantVia := harness.ViaEnv
			if name == "claude" {
				wantVia = harness.ViaFlag
			}
			if via := r.loadMeta(m.ID).FilesVia; via != wantVia {
				t.Fatalf("files_via %q, want %q", via, wantVia)
			}
			r.mux.Stop(m.ID)
		})
	}

	// A chat without files: the variable is absent, even when inherited.
	bare := r.create("shell", nil)
	before := len(r.records())
	if err := r.mux.Start(bare.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	if v, ok := r.waitRecords(before + 1)[before].Getenv(harness.EnvAdditionalFiles); ok {
		t.Fatalf("a chat without files got %s=%q", harness.EnvAdditionalFiles, v)
	}
}

// TestGoneFileRefusesTheStart: a stored file that has gone, or is a folder
// now, refuses the start with its name, as a gone folder does; nothing is
// dropped from the chat file.
func TestGoneFileRefusesTheStart(t *testing.T) {
	r := newRig(t, "echo", nil)
	files := sharedFiles(t, "gone.md", "dir.md", "kept.md")
	m, err := r.store.Create(sessions.NewChat{Harness: "claude", AdditionalFiles: files})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(files[1]); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(files[1], 0o755); err != nil {
		t.Fatal(err)
	}
	err = r.mux.Start(m.ID, 80, 24)
	var gone *proto.FoldersGoneError
	if !errors.As(err, &gone) {
		t.Fatalf("start with a gone file: %v, want a FoldersGoneError", err)
	}
	if len(gone.Problems) != 2 || gone.Problems[0].Path != files[0] || gone.Problems[1].Path != files[1] {
		t.Fatalf("problems %+v, want the gone file and the folder", gone.Problems)
	}
	for _, p := range gone.Problems {
		if p.Field != proto.FieldFiles {
			t.Fatalf("problem %+v: field %q, want %q", p, p.Field, proto.FieldFiles)
		}
	}
	msg := err.Error()
	for _, want := range []string{"file " + files[0], "file " + files[1], "remove the missing files"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("refusal %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "folder "+files[0]) {
		t.Fatalf("refusal %q calls the file a folder", msg)
	}
	if n := len(r.records()); n != 0 {
		t.Fatalf("the harness was started %d times", n)
	}
	if got := r.loadMeta(m.ID).AdditionalFiles; !slices.Equal(got, files) {
		t.Fatalf("the chat's files changed to %q", got)
	}
}

// TestACPFilesLinkedAtTheHeadOfTheFirstPrompt: an ACP agent gets one
// resource_link block per file (file URI, base name, MIME type where known)
// before the text of the chat's first prompt only, and the agent sees them;
// every message sent validates against the ACP schema (the rig checks).
func TestACPFilesLinkedAtTheHeadOfTheFirstPrompt(t *testing.T) {
	r := newACPRig(t, nil)
	files := sharedFiles(t, "api spec.md", "main.go", "LICENSE")
	m, err := r.store.Create(sessions.NewChat{Harness: "fake", AdditionalFiles: files})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"first question", "links"} {
		if _, err := r.prompt(m.ID, text); err != nil {
			t.Fatalf("prompt %q: %v", text, err)
		}
	}
	prompts := r.requests("session/prompt")
	var first, second []map[string]any
	_ = json.Unmarshal(prompts[0]["prompt"], &first)
	_ = json.Unmarshal(prompts[1]["prompt"], &second)
	wantURIs := []string{
		"file://" + strings.ReplaceAll(files[0], " ", "%20"),
		"file://" + files[1],
		"file://" + files[2],
	}
	wantNames := []string{"api spec.md", "main.go", "LICENSE"}
	wantMime := []any{"text/markdown", "text/x-go", nil}
	if len(first) != 4 {
		t.Fatalf("first prompt %v: want three links, then the text", first)
	}
	for i := range files {
		b := first[i]
		if b["type"] != "resource_link" || b["uri"] != wantURIs[i] || b["name"] != wantNames[i] || b["mimeType"] != wantMime[i] {
			t.Fatalf("block %d: %v, want resource_link %s %q %v", i, b, wantURIs[i], wantNames[i], wantMime[i])
		}
	}
	if first[3]["type"] != "text" || first[3]["text"] != "first question" {
		t.Fatalf("the text after the links: %v", first[3])
	}
	if len(second) != 1 || second[0]["text"] != "links" {
		t.Fatalf("second prompt %v: the links go only with the first", second)
	}
	wantSeen := "links: api spec.md " + wantURIs[0] + " text/markdown | main.go " + wantURIs[1] + " text/x-go | LICENSE " + wantURIs[2] + " -"
	if got := r.lastAgentText(m.ID); got != wantSeen {
		t.Fatalf("the agent saw\n %q\nwant\n %q", got, wantSeen)
	}
	if got, err := r.store.Load(m.ID); err != nil || got.FilesVia != harness.ViaACP {
		t.Fatalf("files_via %q (%v), want acp", got.FilesVia, err)
	}
}

// TestACPServesSharedFilesNotTheirSiblings: fs/read_text_file and
// fs/write_text_file serve a chat's single files besides its folders, and
// nothing else in the folders that hold them; a symlink swapped in for a
// shared file is not followed.
func TestACPServesSharedFilesNotTheirSiblings(t *testing.T) {
	r := newACPRig(t, nil)
	files := sharedFiles(t, "shared.md", "swapped.md")
	sibling := filepath.Join(filepath.Dir(files[0]), "sibling.txt")
	m, err := r.store.Create(sessions.NewChat{Harness: "fake", AdditionalFiles: files})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(prompt, want string) {
		t.Helper()
		if _, err := r.prompt(m.ID, prompt); err != nil {
			t.Fatalf("%s: %v", prompt, err)
		}
		if got := r.lastAgentText(m.ID); !strings.HasPrefix(got, want) {
			t.Fatalf("%s: agent got %q, want %q…", prompt, got, want)
		}
	}
	ask("read "+files[0], "read: shared shared.md")
	ask("read "+sibling, "read error")
	ask("write "+files[0]+" edited", "wrote")
	ask("read "+files[0], "read: edited")
	ask("write "+sibling+" planted", "write error")
	ask("write "+filepath.Join(filepath.Dir(files[0]), "new.txt")+" planted", "write error")
	if data, _ := os.ReadFile(sibling); string(data) != "not shared" {
		t.Fatalf("a refused write changed the sibling: %q", data)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(files[0]), "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused write made a file beside the shared one: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(files[0]))
	if len(entries) != 2 {
		t.Fatalf("the shared file's folder holds %d entries after the writes, want 2 (no temporary left)", len(entries))
	}

	// The second file is swapped for a symlink to its sibling: refused,
	// reading and writing.
	other := filepath.Join(filepath.Dir(files[1]), "sibling.txt")
	if err := os.Remove(files[1]); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, files[1]); err != nil {
		t.Fatal(err)
	}
	ask("read "+files[1], "read error")
	ask("write "+files[1]+" through", "write error")
	if data, _ := os.ReadFile(other); string(data) != "not shared" {
		t.Fatalf("a write through the swapped symlink reached the sibling: %q", data)
	}
}

// TestPtyFilesChangedMidTurnApplyAtItsEnd: a running Claude Code chat keeps
// its files while they change; once its turn ends it is restarted,
// resuming its conversation, with the new note and variable.
func TestPtyFilesChangedMidTurnApplyAtItsEnd(t *testing.T) {
	r := newRig(t, "echo", func(_ *config.Config, o *Options) { o.QuietAfter = time.Hour })
	files := sharedFiles(t, "a.md", "b.md")
	m, err := r.store.Create(sessions.NewChat{Harness: "claude", AdditionalFiles: files[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	first := r.waitRecords(1)[0]
	r.waitScreen(m.ID, "ready>")
	setFiles(t, r.store, r.mux, m.ID, files[1:])
	st := r.mux.State(m.ID)
	if !slices.Equal(st.PendingFiles, files[1:]) || !slices.Equal(st.RunningFiles, files[:1]) || st.PendingDirectories != nil || st.Pid != first.Pid {
		t.Fatalf("mid-turn: pending files %q running %q dirs %q pid %d (first %d)", st.PendingFiles, st.RunningFiles, st.PendingDirectories, st.Pid, first.Pid)
	}
	if added, removed := st.PendingFileChange(); !slices.Equal(added, files[1:]) || !slices.Equal(removed, files[:1]) {
		t.Fatalf("pending change: adds %q removes %q", added, removed)
	}
	if err := r.mux.Write(m.ID, []byte("done\a\r")); err != nil {
		t.Fatal(err)
	}
	again := r.waitRecords(2)[1]
	sid := r.loadMeta(m.ID).AgentSessionID
	want := []string{fakeHarness, "--resume", sid, "--append-system-prompt", harness.FilesNote(files[1:])}
	if !slices.Equal(again.Argv, want) {
		t.Fatalf("the restart at the end of the turn\n got %q\nwant %q", again.Argv, want)
	}
	if v, _ := again.Getenv(harness.EnvAdditionalFiles); v != files[1] {
		t.Fatalf("%s=%q after the change, want %q", harness.EnvAdditionalFiles, v, files[1])
	}
	waitFor(t, "the restarted harness", func() bool { return r.mux.State(m.ID).Pid == again.Pid })
	if st := r.mux.State(m.ID); st.Pending() {
		t.Fatalf("still pending after the restart: %q", st.PendingFiles)
	}
}

// TestACPFilesChangedMidTurn: an ACP chat whose files change mid-turn serves
// the new list through fs/* at once, is restarted (loading its session)
// when the turn ends, and links the file added, only that one, at the head
// of the next prompt.
func TestACPFilesChangedMidTurn(t *testing.T) {
	r := newACPRig(t, nil)
	files := sharedFiles(t, "first.md", "added.toml")
	m, err := r.store.Create(sessions.NewChat{Harness: "fake", AdditionalFiles: files[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.prompt(m.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.mux.Prompt(context.Background(), m.ID, "slow")
		done <- err
	}()
	waitFor(t, "the slow turn", func() bool { return r.mux.State(m.ID).TurnActive })
	setFiles(t, r.store, r.mux, m.ID, files[1:])
	c, _ := r.mux.existing(m.ID)
	c.(*acpChat).mu.Lock()
	proc := c.(*acpChat).proc
	c.(*acpChat).mu.Unlock()
	if _, err := proc.roots.ReadText(context.Background(), files[0], nil, nil, 1<<20); err == nil || !strings.Contains(err.Error(), agent.RefusalOutside) {
		t.Fatalf("a file taken off is still served: %v", err)
	}
	if text, err := proc.roots.ReadText(context.Background(), files[1], nil, nil, 1<<20); err != nil || text != "shared added.toml" {
		t.Fatalf("a file added is not served at once: %q %v", text, err)
	}
	if st := r.mux.State(m.ID); !slices.Equal(st.PendingFiles, files[1:]) || !st.TurnActive {
		t.Fatalf("mid-turn: pending files %q, turn active %v", st.PendingFiles, st.TurnActive)
	}
	if err := r.mux.Cancel(m.ID); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the session loaded again", func() bool { return len(r.requests("session/load")) == 1 })
	r.ready(m.ID)
	if st := r.mux.State(m.ID); st.Pending() {
		t.Fatalf("still pending after the restart: %q", st.PendingFiles)
	}
	if _, err := r.prompt(m.ID, "next"); err != nil {
		t.Fatal(err)
	}
	prompts := r.requests("session/prompt")
	var blocks []map[string]any
	_ = json.Unmarshal(prompts[len(prompts)-1]["prompt"], &blocks)
	if len(blocks) != 2 || blocks[0]["type"] != "resource_link" || blocks[0]["uri"] != "file://"+files[1] ||
		blocks[0]["mimeType"] != "application/toml" || blocks[1]["text"] != "next" {
		t.Fatalf("the prompt after the change: %v, want the added file's link, then the text", blocks)
	}
	var firstBlocks []map[string]any
	_ = json.Unmarshal(prompts[0]["prompt"], &firstBlocks)
	if len(firstBlocks) != 2 || firstBlocks[0]["uri"] != "file://"+files[0] {
		t.Fatalf("the first prompt: %v, want the first file's link, then the text", firstBlocks)
	}
}

// TestPoolIsNotTakenByChatsWithFiles: a prewarmed harness started without
// files; a new chat with files gets a start of its own, with them.
func TestPoolIsNotTakenByChatsWithFiles(t *testing.T) {
	r := newRig(t, "echo", func(c *config.Config, _ *Options) {
		c.Pool.Size = config.PoolSize{PerHarness: map[string]int{"shell": 1}}
	})
	if err := r.mux.Fill(); err != nil {
		t.Fatal(err)
	}
	pooled := r.waitRecords(1)[0]
	files := sharedFiles(t, "spec.md")
	m, err := r.mux.CreateAndStart(sessions.NewChat{Harness: "shell", AdditionalFiles: files}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	rec := r.waitRecords(2)[1]
	if rec.Pid == pooled.Pid || rec.Cwd != m.Cwd {
		t.Fatalf("chat with files: pid %d cwd %q; pooled pid %d", rec.Pid, rec.Cwd, pooled.Pid)
	}
	if v, _ := rec.Getenv(harness.EnvAdditionalFiles); v != files[0] {
		t.Fatalf("chat with files started with %s=%q", harness.EnvAdditionalFiles, v)
	}
	if r.mux.PoolSize("shell") != 1 {
		t.Fatalf("the pooled harness was taken: pool size %d", r.mux.PoolSize("shell"))
	}
}

// TestACPFilesChangedForAnAgentThatCannotReload: an agent that can neither
// load nor resume keeps running through a change of files (a restart would
// lose the conversation); the file added is linked at the head of its next
// prompt, and the change counts as taken once that prompt is sent.
func TestACPFilesChangedForAnAgentThatCannotReload(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_LOAD": "0"})
	files := sharedFiles(t, "first.md", "added.json")
	m, err := r.store.Create(sessions.NewChat{Harness: "fake", AdditionalFiles: files[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.prompt(m.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	pid := r.mux.State(m.ID).Pid
	setFiles(t, r.store, r.mux, m.ID, files)
	if st := r.mux.State(m.ID); !slices.Equal(st.PendingFiles, files) {
		t.Fatalf("before the next prompt: pending files %q, want %q", st.PendingFiles, files)
	}
	if _, err := r.prompt(m.ID, "links"); err != nil {
		t.Fatal(err)
	}
	st := r.mux.State(m.ID)
	if st.Pid != pid || st.Pending() {
		t.Fatalf("after the prompt: pid %d (was %d), pending files %q", st.Pid, pid, st.PendingFiles)
	}
	prompts := r.requests("session/prompt")
	var blocks []map[string]any
	_ = json.Unmarshal(prompts[1]["prompt"], &blocks)
	if len(blocks) != 2 || blocks[0]["uri"] != "file://"+files[1] || blocks[0]["mimeType"] != "application/json" {
		t.Fatalf("the prompt after the change: %v, want the added file's link only, then the text", blocks)
	}
	want := "links: first.md file://" + files[0] + " text/markdown | added.json file://" + files[1] + " application/json"
	if got := r.lastAgentText(m.ID); got != want {
		t.Fatalf("the agent saw %q, want %q", got, want)
	}
	if n := len(r.requests("initialize")); n != 1 {
		t.Fatalf("%d initialize: the agent was restarted", n)
	}
}

// TestACPFilesLinkedAgainAfterARestartOfTheMux: a conversation loaded by a
// fresh mux gets the links again at its next prompt (what it was told is
// not stored); within one mux, a restart that loads the session does not
// repeat them.
func TestACPFilesLinkedAgainAfterARestartOfTheMux(t *testing.T) {
	r := newACPRig(t, nil)
	files := sharedFiles(t, "spec.md")
	m, err := r.store.Create(sessions.NewChat{Harness: "fake", AdditionalFiles: files})
	if err != nil {
		t.Fatal(err)
	}
	linksIn := func(i int) int {
		var blocks []map[string]any
		_ = json.Unmarshal(r.requests("session/prompt")[i]["prompt"], &blocks)
		n := 0
		for _, b := range blocks {
			if b["type"] == "resource_link" {
				n++
			}
		}
		return n
	}
	if _, err := r.prompt(m.ID, "one"); err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Restart(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	if _, err := r.prompt(m.ID, "two"); err != nil {
		t.Fatal(err)
	}
	r.reopen()
	if _, err := r.prompt(m.ID, "three"); err != nil {
		t.Fatal(err)
	}
	if got := []int{linksIn(0), linksIn(1), linksIn(2)}; !slices.Equal(got, []int{1, 0, 1}) {
		t.Fatalf("links per prompt %v, want [1 0 1]: first prompt, none after a restart, again after the mux restarted", got)
	}
	if n := len(r.requests("session/load")); n != 2 {
		t.Fatalf("%d session/load, want 2", n)
	}
}

// TestSharedFileInsideTheAgentHomeIsNeverServed: the validator refuses such
// a file, and fs/* refuses it even if a list carried one: the chat files and
// the socket are never an agent's to read or write.
func TestSharedFileInsideTheAgentHomeIsNeverServed(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(home, "chats", "k3x9q2.toml")
	if err := os.MkdirAll(filepath.Dir(chat), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chat, []byte("version = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd, _ := filepath.EvalSymlinks(t.TempDir())
	r := agent.NewRoots(home, cwd, nil)
	r.SetFiles([]string{chat})
	if _, err := r.ReadText(context.Background(), chat, nil, nil, 1<<20); err == nil || !strings.Contains(err.Error(), agent.RefusalOutside) {
		t.Fatalf("read of a chat file in the agent home: %v, want %q", err, agent.RefusalOutside)
	}
	if err := r.WriteText(chat, "hijacked", 1<<20); err == nil || !strings.Contains(err.Error(), agent.RefusalOutside) {
		t.Fatalf("write of a chat file in the agent home: %v, want %q", err, agent.RefusalOutside)
	}
	if data, _ := os.ReadFile(chat); string(data) != "version = 1\n" {
		t.Fatalf("the chat file was changed: %q", data)
	}
}
