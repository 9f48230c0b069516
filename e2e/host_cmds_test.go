package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestHostCommands runs the chat commands with --host test against the
// far side's server over the real sshd: the chats live in its agent home,
// and its server validates every folder.
func TestHostCommands(t *testing.T) {
	r := newHostRig(t)
	project := r.dir("remote-project")
	lib := r.dir("remote-lib")
	// A folder inside this machine's agent home: the local validator
	// refuses it, the host's (whose agent home is elsewhere) takes it.
	here := filepath.Join(r.home, "scratch")
	if err := os.MkdirAll(here, 0o755); err != nil {
		t.Fatal(err)
	}
	var chat proto.ChatJSON
	out := r.ok("new", "--host", "test", "--harness", "shell", "--cwd", project, "--dir", lib, "--dir", here, "--name", "far chat", "--json")
	if err := json.Unmarshal([]byte(out), &chat); err != nil {
		t.Fatalf("new --json: %v\n%s", err, out)
	}
	if chat.Cwd != project || len(chat.AdditionalDirectories) != 2 || chat.AdditionalDirectories[1] != here {
		t.Fatalf("new --host: %+v", chat)
	}
	if _, err := os.Stat(filepath.Join(r.remoteHome, "chats", chat.ID+".toml")); err != nil {
		t.Fatalf("the chat is not in the host's agent home: %v", err)
	}
	if res := r.run("new", "--harness", "shell", "--dir", here); res.code != 2 || !strings.Contains(res.stderr, "agent home") {
		t.Fatalf("the local validator took a folder in the local agent home: exit %d %s", res.code, res.stderr)
	}

	// A folder that exists nowhere, and one inside the host's agent home:
	// refused by the host's server (-32602, exit 2), nothing made.
	for _, bad := range []string{filepath.Join(r.root, "nowhere"), filepath.Join(r.remoteHome, "chats")} {
		res := r.run("new", "--host", "test", "--harness", "shell", "--dir", bad)
		if res.code != 2 || !strings.Contains(res.stderr, bad) {
			t.Fatalf("new --host --dir %s: exit %d\n%s", bad, res.code, res.stderr)
		}
	}
	// A relative folder is this machine's: refused before ssh is asked.
	if res := r.run("new", "--host", "test", "--dir", "lib"); res.code != 2 || !strings.Contains(res.stderr, "must be an absolute path") {
		t.Fatalf("new --host --dir lib: exit %d\n%s", res.code, res.stderr)
	}

	var list []proto.ChatJSON
	if err := json.Unmarshal([]byte(r.ok("ls", "--host", "test", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != chat.ID || list[0].Status != "stopped" {
		t.Fatalf("ls --host test --json = %+v", list)
	}
	if local := r.ls(); len(local) != 0 {
		t.Fatalf("local ls shows %d chats", len(local))
	}
	if text := r.ok("ls", "--host=test"); !strings.Contains(text, chat.ID) || !strings.Contains(text, "far chat") {
		t.Fatalf("ls --host=test:\n%s", text)
	}
	show := r.ok("show", "far", "--host", "test")
	squeezed := strings.Join(strings.Fields(show), " ")
	for _, want := range []string{"host test", "cwd " + project, "folders " + lib} {
		if !strings.Contains(squeezed, want) {
			t.Fatalf("show --host:\n%s\nwant %q", show, want)
		}
	}
	if res := r.run("show", "nothing-like-it", "--host", "test"); res.code == 0 || !strings.Contains(res.stderr, "on host test") {
		t.Fatalf("show of an unknown chat: exit %d %s", res.code, res.stderr)
	}

	r.ok("rm-dir", chat.ID, here, "--host", "test")
	extra := r.dir("remote-extra")
	r.ok("add-dir", chat.ID, extra, "--host", "test")
	if res := r.run("add-dir", chat.ID, filepath.Join(r.root, "gone"), "--host", "test"); res.code != 2 {
		t.Fatalf("add-dir of a missing folder: exit %d %s", res.code, res.stderr)
	}
	var got proto.ChatJSON
	json.Unmarshal([]byte(r.ok("show", chat.ID, "--json", "--host", "test")), &got)
	if strings.Join(got.AdditionalDirectories, ",") != lib+","+extra {
		t.Fatalf("folders on the host: %v", got.AdditionalDirectories)
	}

	var fork, side proto.ChatJSON
	json.Unmarshal([]byte(r.ok("fork", chat.ID, "--host", "test", "--json")), &fork)
	json.Unmarshal([]byte(r.ok("side", chat.ID, "--host", "test", "--json")), &side)
	if fork.Origin != "fork" || fork.Parent != chat.ID || side.Origin != "side" || strings.Join(side.AdditionalDirectories, ",") != lib+","+extra {
		t.Fatalf("fork %+v\nside %+v", fork, side)
	}
	if _, err := os.Stat(filepath.Join(r.remoteHome, "chats", fork.ID+".toml")); err != nil {
		t.Fatalf("the fork is not on the host: %v", err)
	}
	if out := r.ok("rm", side.ID, "--host", "test"); !strings.Contains(out, "removed "+side.ID) {
		t.Fatalf("rm --host: %s", out)
	}
	if _, err := os.Stat(filepath.Join(r.remoteHome, "chats", side.ID+".toml")); err == nil {
		t.Fatal("rm --host left the chat's file")
	}

	if res := r.run("ls", "--host", "nosuch"); res.code != 2 || !strings.Contains(res.stderr, `no [host.nosuch] in the config (hosts: test)`) {
		t.Fatalf("ls --host nosuch: exit %d %s", res.code, res.stderr)
	}
	r.ok("kill-server", "--host", "test")
	if _, err := os.Stat(filepath.Join(r.remoteHome, "acpmux.sock")); err == nil {
		t.Fatal("kill-server --host left the host's socket")
	}
}

// TestHostLinkKilled: the ssh process dies under a connection; the next
// call fails, and the error says the link is down.
func TestHostLinkKilled(t *testing.T) {
	r := newHostRig(t)
	c, err := client.DialHost(context.Background(), r.host())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pid := client.LinkPid(c)
	if pid <= 0 {
		t.Fatal("no ssh pid")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.Done()
	err = c.Call(context.Background(), proto.MethodList, struct{}{}, nil)
	if err == nil {
		t.Fatal("a call over a dead link succeeded")
	}
	if why := client.LinkError(c).Error(); !strings.Contains(why, "the link to host test is down") {
		t.Fatalf("LinkError = %q", why)
	}
}

// TestHostPrompt runs one ACP turn on the host's agent with prompt --host:
// the reply streams back over ssh, and a second prompt loads the session.
func TestHostPrompt(t *testing.T) {
	r := newHostRig(t)
	state := r.dir("remote-agent-state")
	cfg := "default_harness = \"shell\"\n[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = \"" + state + "\" }\n"
	if err := os.WriteFile(r.remoteConfig, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := r.chat("new", "--host", "test", "--harness", "fake", "--json")
	if out := r.ok("prompt", chat.ID, "hello", "there", "--host", "test"); out != "echo: hello there\n" {
		t.Fatalf("prompt --host printed %q", out)
	}
	if out := r.ok("prompt", "--host", "test", chat.ID, "again"); out != "echo: again\n" {
		t.Fatalf("second prompt --host printed %q", out)
	}
	var shown proto.ChatJSON
	json.Unmarshal([]byte(r.ok("show", chat.ID, "--host", "test", "--json")), &shown)
	if shown.AgentSessionID == "" {
		t.Fatal("the host did not store the session id")
	}
	// The local home has no such harness: the host's table is the one used.
	if res := r.run("new", "--harness", "fake"); res.code != 2 {
		t.Fatalf("the local table knows fake: exit %d", res.code)
	}
	var handoff proto.ChatJSON
	json.Unmarshal([]byte(r.ok("handoff", chat.ID, "--to", "shell", "--host", "test", "--json")), &handoff)
	if handoff.Origin != "handoff" || handoff.Harness != "shell" || handoff.Parent != chat.ID {
		t.Fatalf("handoff --host: %+v", handoff)
	}
	// The host's server wrote the capsule from the conversation it ran.
	store, err := sessions.OpenStore(r.remoteHome)
	if err != nil {
		t.Fatal(err)
	}
	capsule, _, err := store.Capsule(handoff.ID)
	if err != nil {
		t.Fatalf("the handoff on the host has no capsule: %v", err)
	}
	if !strings.Contains(capsule, "hello there") || !strings.Contains(capsule, "echo: again") {
		t.Fatalf("the host's capsule does not carry the conversation:\n%s", capsule)
	}
	// --edit opens the host's capsule in this machine's editor first.
	res := r.runWith([]string{"EDITOR=/bin/sed -i s/hello.there/EDITED_HERE/"}, "handoff", chat.ID, "--to", "shell", "--edit", "--host", "test", "--json")
	if res.code != 0 {
		t.Fatalf("handoff --edit --host: exit %d\n%s", res.code, res.stderr)
	}
	var edited proto.ChatJSON
	json.Unmarshal([]byte(res.stdout), &edited)
	capsule, _, err = store.Capsule(edited.ID)
	if err != nil || !strings.Contains(capsule, "EDITED_HERE") || strings.Contains(capsule, "hello there") || !strings.Contains(capsule, "echo: again") {
		t.Fatalf("the edited capsule on the host (%v):\n%s", err, capsule)
	}
}

// TestHostWorktree: new --worktree --base and fork --worktree with --host
// make the worktrees on the host, of a repository there, from the ref
// asked; --base without --worktree is refused before ssh runs.
func TestHostWorktree(t *testing.T) {
	r := newHostRig(t)
	repo := r.dir("far-repo")
	first := gitRepo(t, repo, map[string]string{"a.txt": "one\n"})
	writeTree(t, filepath.Join(repo, "a.txt"), "two\n")
	gitIn(t, repo, "commit", "-q", "-am", "second")
	chat := r.chat("new", "--host", "test", "--cwd", repo, "--worktree", "--base", first, "--json")
	if chat.Worktree == nil || chat.Worktree.Base != first || chat.Cwd != chat.Worktree.Path || !strings.HasPrefix(chat.Worktree.Path, r.remoteHome) {
		t.Fatalf("new --worktree --base --host: %+v (worktree %+v)", chat, chat.Worktree)
	}
	if got := gitIn(t, chat.Worktree.Path, "rev-parse", "HEAD"); got != first {
		t.Fatalf("the worktree starts at %s, want %s", got, first)
	}
	var fork proto.ChatJSON
	json.Unmarshal([]byte(r.ok("fork", chat.ID, "--worktree", "--host", "test", "--json")), &fork)
	if fork.Worktree == nil || fork.Worktree.Path == chat.Worktree.Path || fork.Worktree.Branch == chat.Worktree.Branch {
		t.Fatalf("fork --worktree --host: %+v", fork.Worktree)
	}
	if res := r.run("new", "--host", "test", "--cwd", repo, "--base", first); res.code != 2 || !strings.Contains(res.stderr, "--base goes with --worktree") {
		t.Fatalf("--base alone: exit %d, %s", res.code, res.stderr)
	}
	if status := gitIn(t, repo, "status", "--porcelain"); status != "" {
		t.Fatalf("the host's repository was touched: %q", status)
	}
}
