package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// listed is the chat as _acpmux/list (ls) shows it, ok false when it is
// not listed.
func listed(r *rig, id string) (proto.ChatJSON, bool) {
	var list proto.ListResult
	r.dial().ok(proto.MethodList, nil, &list)
	for _, c := range list.Chats {
		if c.ID == id {
			return c, true
		}
	}
	return proto.ChatJSON{}, false
}

// TestDoorCloseEndsOnlyThisClientsAttachment: after session/close the
// client hears no more of the chat, another client still does, and the
// chat and its agent go on; the client may attach again.
func TestDoorCloseEndsOnlyThisClientsAttachment(t *testing.T) {
	p := newPromptRig(t)
	v := acpschema.ForTest(t)
	c, c2 := p.doorClient(v), p.doorClient(v)
	initDoor(t, c)
	initDoor(t, c2)
	proj := p.folders(1)[0]
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	id := string(resp.SessionId)
	if _, err := c2.ResumeSession(hangCtx(t), sdk.ResumeSessionRequest{SessionId: resp.SessionId, Cwd: proj}); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	for range 2 { // closing twice is no error
		if _, err := c.CloseSession(hangCtx(t), sdk.CloseSessionRequest{SessionId: resp.SessionId}); err != nil {
			t.Fatalf("session/close: %v", err)
		}
	}
	c.Forget()

	s := &stream{t: t, w: p.dial(), chat: id}
	s.observe()
	s.prompt("after the close", false)
	waitFor(t, "the turn at the client still attached", func() bool {
		return strings.Contains(c2.Text(id, "agent"), "echo: after the close")
	})
	s.until("the turn's end in the TUI's stream", func(e proto.ObservedEntry) bool {
		return e.Kind == proto.EntryAgent && strings.Contains(e.Text, "echo: after the close")
	})
	if n := len(c.Updates()); n != 0 {
		t.Fatalf("the closed client still heard %d updates: %+v", n, c.Updates())
	}
	if m, ok := listed(p.rig, id); !ok || !live(m.Status) {
		t.Fatalf("after session/close ls shows %+v (listed %v), want the chat running", m, ok)
	}

	// Closed, the client can attach again and hears the chat once more.
	if _, err := c.ResumeSession(hangCtx(t), sdk.ResumeSessionRequest{SessionId: resp.SessionId, Cwd: proj}); err != nil {
		t.Fatalf("session/resume after the close: %v", err)
	}
	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("back again")}}); err != nil {
		t.Fatalf("session/prompt after the close: %v", err)
	}
	if got := c.Text(id, "agent"); !strings.Contains(got, "echo: back again") {
		t.Fatalf("the client attached again heard %q", got)
	}

	// A session that is no chat is refused.
	_, err = c.CloseSession(hangCtx(t), sdk.CloseSessionRequest{SessionId: "nosuch"})
	if code, _, _ := doorclient.AsRefusal(err); code != proto.CodeChatNotFound {
		t.Fatalf("session/close of no chat: %v, want %d", err, proto.CodeChatNotFound)
	}
	for _, cl := range []*doorclient.Client{c, c2} {
		if err := cl.Invalid(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDoorDeleteRemovesTheChatWithRmsGuards: session/delete removes the
// chat as rm does, its agent stopped; a worktree chat whose worktree holds
// work is refused with the reason and left as it was.
func TestDoorDeleteRemovesTheChatWithRmsGuards(t *testing.T) {
	p := newPromptRig(t)
	c := p.doorClient(acpschema.ForTest(t))
	initDoor(t, c)

	repo, _ := serverGitRepo(t)
	yes := true
	var wt proto.ChatJSON
	p.dial().ok(proto.MethodNew, proto.NewParams{Harness: "fake", Cwd: repo, Worktree: &yes}, &wt)
	if wt.Worktree == nil {
		t.Fatalf("no worktree: %+v", wt)
	}
	if _, err := c.ResumeSession(hangCtx(t), sdk.ResumeSessionRequest{SessionId: sdk.SessionId(wt.ID), Cwd: wt.Cwd}); err != nil {
		t.Fatalf("session/resume of the worktree chat: %v", err)
	}
	if err := os.WriteFile(filepath.Join(wt.Worktree.Path, "new.txt"), []byte("n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := c.UnstableDeleteSession(hangCtx(t), sdk.UnstableDeleteSessionRequest{SessionId: sdk.SessionId(wt.ID)})
	code, _, _ := doorclient.AsRefusal(err)
	if code != proto.CodeFailed || !strings.Contains(err.Error(), "work that would be lost") || !strings.Contains(err.Error(), "new.txt") {
		t.Fatalf("session/delete of a worktree with work: %v, want %d with the reason", err, proto.CodeFailed)
	}
	if _, err := p.store.Load(wt.ID); err != nil {
		t.Fatalf("the refused chat is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(wt.Worktree.Path, "new.txt")); err != nil {
		t.Fatalf("the refused chat's work is gone: %v", err)
	}
	if m, ok := listed(p.rig, wt.ID); !ok || !live(m.Status) {
		t.Fatalf("after a refused delete ls shows %+v (listed %v), want the chat running", m, ok)
	}

	proj := p.folders(1)[0]
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	id := string(resp.SessionId)
	recs, err := startrecord.Read(p.starts)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(recs, func(r startrecord.Record) bool { return r.Cwd == proj })
	if i < 0 {
		t.Fatalf("no start of the agent in %s: %+v", proj, recs)
	}
	pid := recs[i].Pid
	if !processAlive(pid) {
		t.Fatal("the chat's agent is not running")
	}
	if _, err := c.UnstableDeleteSession(hangCtx(t), sdk.UnstableDeleteSessionRequest{SessionId: resp.SessionId}); err != nil {
		t.Fatalf("session/delete: %v", err)
	}
	if _, err := p.store.Load(id); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("the deleted chat loads: %v", err)
	}
	if _, ok := listed(p.rig, id); ok {
		t.Fatal("ls still lists the deleted chat")
	}
	waitFor(t, "the deleted chat's agent to end", func() bool { return !processAlive(pid) })
	list, err := c.ListSessions(hangCtx(t), sdk.ListSessionsRequest{})
	if err != nil {
		t.Fatalf("session/list: %v", err)
	}
	for _, s := range list.Sessions {
		if string(s.SessionId) == id {
			t.Fatal("session/list still lists the deleted chat")
		}
	}
	_, err = c.UnstableDeleteSession(hangCtx(t), sdk.UnstableDeleteSessionRequest{SessionId: resp.SessionId})
	if code, _, _ := doorclient.AsRefusal(err); code != proto.CodeChatNotFound {
		t.Fatalf("a second session/delete: %v, want %d", err, proto.CodeChatNotFound)
	}
	if err := c.Invalid(); err != nil {
		t.Fatal(err)
	}
}

// TestWebDoorMayCloseButNotDelete: a web caller's session/close is
// served; its session/delete is refused, and the chat stays.
func TestWebDoorMayCloseButNotDelete(t *testing.T) {
	p := newPromptRig(t)
	d := p.webDoor(acpschema.ForTest(t))
	initDoor(t, d)
	if _, err := d.CloseSession(hangCtx(t), sdk.CloseSessionRequest{SessionId: sdk.SessionId(p.chat)}); err != nil {
		t.Fatalf("a web caller's session/close: %v", err)
	}
	_, err := d.UnstableDeleteSession(hangCtx(t), sdk.UnstableDeleteSessionRequest{SessionId: sdk.SessionId(p.chat)})
	if code, _, _ := doorclient.AsRefusal(err); code != proto.CodeMethodNotFound || !strings.Contains(err.Error(), "not for web callers") {
		t.Fatalf("a web caller's session/delete: %v, want %d", err, proto.CodeMethodNotFound)
	}
	if _, err := p.store.Load(p.chat); err != nil {
		t.Fatalf("the chat is gone after a web caller's delete: %v", err)
	}
}

// TestDoorListsTheAgentsTitle: an agent's title (session_info_update) is
// the chat's title in the door's session/list where the user named it
// not; a user's name wins.
func TestDoorListsTheAgentsTitle(t *testing.T) {
	p := newPromptRig(t)
	c := p.doorClient(acpschema.ForTest(t))
	initDoor(t, c)
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: p.folders(1)[0], McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("title Parser report")}}); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	title := func() string {
		t.Helper()
		list, err := c.ListSessions(hangCtx(t), sdk.ListSessionsRequest{})
		if err != nil {
			t.Fatalf("session/list: %v", err)
		}
		for _, s := range list.Sessions {
			if s.SessionId == resp.SessionId && s.Title != nil {
				return *s.Title
			}
		}
		return ""
	}
	if got := title(); got != "Parser report" {
		t.Fatalf("listed title %q, want the agent's", got)
	}
	p.dial().ok(proto.MethodRename, proto.RenameParams{ID: string(resp.SessionId), Name: "mine"}, nil)
	if got := title(); got != "mine" {
		t.Fatalf("listed title %q after a rename, want the user's name", got)
	}
}

// TestDoorTellsTitleAndUsage: the agent's session_info_update and
// usage_update reach every door client of the chat, the one that prompted
// and another that loaded the session, each once per change, as the agent
// said them (the title cleaned, the usage checked: an absurd one is not
// passed on).
func TestDoorTellsTitleAndUsage(t *testing.T) {
	c, c2, sid := twoDoorClients(t, "title Parser \x1b[31mreport", "usage 1000 200000 0.42 USD", "usage 1000 200000 1e30 USD", "usage 2000 200000")
	heard := func(dc *doorclient.Client) (titles []string, usages []string) {
		for _, n := range dc.Updates() {
			if n.SessionId != sid {
				continue
			}
			if u := n.Update.SessionInfoUpdate; u != nil && u.Title != nil {
				titles = append(titles, *u.Title)
			}
			if u := n.Update.UsageUpdate; u != nil {
				s := fmt.Sprintf("%d/%d", u.Used, u.Size)
				if u.Cost != nil {
					s += fmt.Sprintf(" %g %s", u.Cost.Amount, u.Cost.Currency)
				}
				usages = append(usages, s)
			}
		}
		return titles, usages
	}
	for name, dc := range map[string]*doorclient.Client{"the prompting client": c, "the loading client": c2} {
		waitFor(t, name+" to hear the title and both usages", func() bool {
			titles, usages := heard(dc)
			return slices.Equal(titles, []string{"Parser report"}) && slices.Equal(usages, []string{"1000/200000 0.42 USD", "2000/200000"})
		})
	}
}

// TestDoorPassesAPlanWhole: a plan reaches a door client as the agent sent
// it, each entry's status and priority kept (not every entry pending and
// of medium priority, its status written into its text), and the server's
// transcript holds it whole.
func TestDoorPassesAPlanWhole(t *testing.T) {
	_, watcher, sid := twoDoorClients(t, "plan")
	want := []sdk.PlanEntry{
		{Content: "Read the code", Priority: sdk.PlanEntryPriorityHigh, Status: sdk.PlanEntryStatusCompleted},
		{Content: "Write the fix", Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusInProgress},
	}
	var got []sdk.PlanEntry
	waitFor(t, "the plan at the loading client", func() bool {
		for _, n := range watcher.Updates() {
			if n.SessionId == sid && n.Update.Plan != nil {
				got = n.Update.Plan.Entries
			}
		}
		return len(got) == len(want)
	})
	for i := range want {
		if got[i].Content != want[i].Content || got[i].Priority != want[i].Priority || got[i].Status != want[i].Status {
			t.Fatalf("the door sent the plan as %+v, want %+v", got, want)
		}
	}
}

// twoDoorClients opens a session of the fake agent through the door on
// one client, loads it on a second, and sends the first client's prompts
// in turn: what each client then hears is the test's.
func twoDoorClients(t *testing.T, prompts ...string) (prompter, loader *doorclient.Client, sid sdk.SessionId) {
	t.Helper()
	p := newPromptRig(t)
	v := acpschema.ForTest(t)
	prompter = p.doorClient(v)
	initDoor(t, prompter)
	proj := p.folders(1)[0]
	resp, err := prompter.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	loader = p.doorClient(v)
	initDoor(t, loader)
	if _, err := loader.LoadSession(hangCtx(t), sdk.LoadSessionRequest{SessionId: resp.SessionId, Cwd: proj, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	for _, text := range prompts {
		if _, err := prompter.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}); err != nil {
			t.Fatalf("session/prompt %q: %v", text, err)
		}
	}
	return prompter, loader, resp.SessionId
}
