package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// SignIn answers as the server does: an env_var method says what to set,
// another signs in (its offers cleared from the chat's state).
func (f *fakeMux) SignIn(id, method string) (proto.SignInResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.states[id]
	for _, s := range st.SignIn {
		if s.ID != method {
			continue
		}
		if s.Kind == proto.SignInEnv {
			return proto.SignInResult{Method: s, Message: proto.SignInWhere(s, "fake", "/cfg/config.toml")}, nil
		}
		st.SignIn = nil
		f.states[id] = st
		return proto.SignInResult{Method: s, Message: "chat " + id + " starts again and signs in with " + s.ID}, nil
	}
	return proto.SignInResult{}, fmt.Errorf("chat %s: its agent offers no sign-in method %q", id, method)
}

// TestSignInDialog: the summary of a failed ACP chat lists its agent's
// sign-in offers and the key; A opens the dialog listing them; enter on
// the env method says in the box what to set and where and stays open;
// enter on the agent method signs in, closes the dialog and says so; A on
// a chat that wants no sign-in says so.
func TestSignInDialog(t *testing.T) {
	r := newRig(t, nil)
	chat := r.create(sessions.NewChat{Name: "agent chat", Harness: "opencode"})
	other := r.create(sessions.NewChat{Name: "terminal chat"})
	offers := []proto.SignIn{
		{ID: "key", Name: "API key", Kind: proto.SignInEnv, Vars: []string{"FAKE_KEY"}},
		{ID: "login", Name: "Log in", Kind: proto.SignInAgent, Description: "with your account"},
	}
	r.fake.states[chat.ID] = proto.State{Status: proto.StatusFailed, Transport: "acp", Reason: "the agent needs you to log in first", SignIn: offers}
	r.open(Options{})
	r.m.sidebar.Select(chat.ID)
	r.run(r.m.selectionChanged())
	if v := r.m.View(); !strings.Contains(v, "sign in  A: API key: set FAKE_KEY") || !strings.Contains(v, "Log in: the agent signs in") {
		t.Fatalf("the summary lists no sign-in offers:\n%s", v)
	}

	r.key(runeKey('A'))
	d, ok := r.m.dialog.(*SignInDialog)
	if !ok {
		t.Fatalf("A opened %T, want the sign-in dialog (status %q)", r.m.dialog, r.m.status)
	}
	if v := r.m.View(); !strings.Contains(v, "sign in · agent chat") || !strings.Contains(v, "› API key: set FAKE_KEY") {
		t.Fatalf("the dialog:\n%s", v)
	}
	r.key(keyOf(tea.KeyEnter))
	if r.m.dialog != d || !strings.Contains(d.Info(), "set FAKE_KEY in the env of [harness.fake] in /cfg/config.toml") {
		t.Fatalf("enter on the env method: dialog %T, info %q", r.m.dialog, d.Info())
	}
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyEnter))
	if r.m.dialog != nil {
		t.Fatalf("signing in left %T open: %q", r.m.dialog, d.ErrText())
	}
	if !strings.Contains(r.m.status, "signs in with login") {
		t.Fatalf("status %q", r.m.status)
	}

	r.m.sidebar.Select(other.ID)
	r.run(r.m.selectionChanged())
	r.key(runeKey('A'))
	if r.m.dialog != nil || !strings.Contains(r.m.status, "has not asked to sign in") {
		t.Fatalf("A on a chat that wants no sign-in: dialog %T, status %q", r.m.dialog, r.m.status)
	}
}
