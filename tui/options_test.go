package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// optionsFake is the fake server's part in the ACP chats' modes and
// options: each chat's, and the values its agent refuses.
type optionsFake struct {
	byChat map[string][]proto.ChatOption
	// refuse is, by "OPTION=VALUE" (ids), the agent's refusal.
	refuse map[string]string
	sets   []string // "ID OPTION=VALUE" asked, in order
}

// ChatOptions answers the chat's options, as the server does.
func (f *fakeMux) ChatOptions(id string) (proto.OptionsResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return proto.OptionsResult{Running: f.states[id].Status.Live(), Options: f.options.byChat[id]}, nil
}

// SetOption matches and sets as the server does, refusing what the test
// has the agent refuse; the chat's state then carries the new settings.
func (f *fakeMux) SetOption(id, option, value string) (proto.OptionsResult, error) {
	f.mu.Lock()
	f.options.sets = append(f.options.sets, id+" "+option+"="+value)
	opts := append([]proto.ChatOption(nil), f.options.byChat[id]...)
	o, err := proto.FindOption(opts, option)
	if err != nil {
		f.mu.Unlock()
		return proto.OptionsResult{}, err
	}
	v, err := o.FindValue(value)
	if err != nil {
		f.mu.Unlock()
		return proto.OptionsResult{}, err
	}
	if msg, ok := f.options.refuse[o.ID+"="+v.ID]; ok {
		f.mu.Unlock()
		return proto.OptionsResult{}, fmt.Errorf("the agent refused %s %s: %s", o.Name, v.Name, msg)
	}
	for i := range opts {
		if opts[i].ID == o.ID {
			opts[i].Current = v.ID
		}
	}
	f.options.byChat[id] = opts
	st := f.states[id]
	st.Settings = proto.SettingsOf(opts)
	f.states[id] = st
	f.mu.Unlock()
	return proto.OptionsResult{Running: true, Options: opts}, nil
}

// fakeAgentOptions are the fake ACP agent's (internal/testharness/acpfake
// with ACPMUX_FAKE_REFUSE=1): two modes and a refused one, a model select
// with a refused value.
func fakeAgentOptions() []proto.ChatOption {
	return []proto.ChatOption{
		{ID: "mode", Name: "Mode", Kind: proto.OptionMode, Current: "ask", Values: []proto.OptionValue{
			{ID: "ask", Name: "Ask", Description: "Asks before it edits"}, {ID: "code", Name: "Code"}, {ID: "yolo", Name: "Yolo"}}},
		{ID: "model", Name: "Model", Kind: proto.OptionSelect, Current: "fast", Values: []proto.OptionValue{
			{ID: "fast", Name: "Fast"}, {ID: "smart", Name: "Smart"}, {ID: "slow", Name: "Slow"}}},
	}
}

// TestOptionsChooser: o on an ACP chat opens the chooser listing its mode
// and its model with their values, the current ones marked; enter on
// another value sets it through the server, closes the chooser, says so
// in the status line, and the summary shows the new value once the server
// tells the chat's state; the agent's refusal shows in the chooser, which
// stays open and changes nothing; esc closes it; o on a terminal chat says
// it has no modes.
func TestOptionsChooser(t *testing.T) {
	r := newRig(t, nil)
	acpChat := r.create(sessions.NewChat{Name: "agent chat", Harness: "opencode"})
	shell := r.create(sessions.NewChat{Name: "terminal chat"})
	fresh := r.create(sessions.NewChat{Name: "fresh agent", Harness: "opencode"})
	opts := fakeAgentOptions()
	r.fake.options = optionsFake{byChat: map[string][]proto.ChatOption{acpChat.ID: opts},
		refuse: map[string]string{"model=slow": "slow is not on your plan", "mode=yolo": "yolo mode is off by policy"}}
	r.fake.states[acpChat.ID] = proto.State{Status: proto.StatusWaiting, Transport: "acp", Settings: proto.SettingsOf(opts)}
	r.open(Options{})
	r.m.sidebar.Select(acpChat.ID)
	r.run(r.m.selectionChanged())
	if v := r.m.View(); !strings.Contains(v, "mode     Ask") || !strings.Contains(v, "model    Fast") {
		t.Fatalf("the summary shows no mode and model:\n%s", v)
	}

	r.key(runeKey('o'))
	d, ok := r.m.dialog.(*OptionsDialog)
	if !ok {
		t.Fatalf("o opened %T, want the options chooser", r.m.dialog)
	}
	v := r.m.View()
	for _, want := range []string{"mode and options", "● Ask", "○ Code", "○ Yolo", "● Fast", "○ Smart", "○ Slow"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the chooser shows no %q:\n%s", want, v)
		}
	}
	if o, val := d.Current(); o != "mode" || val != "ask" {
		t.Fatalf("the cursor starts on %s=%s, want the current mode", o, val)
	}

	// The mode: down to Code, enter.
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyEnter))
	if r.m.dialog != nil {
		t.Fatalf("setting the mode left %T open: %q", r.m.dialog, d.ErrText())
	}
	if !strings.Contains(r.m.status, "Mode is Code now") {
		t.Fatalf("status %q", r.m.status)
	}
	r.run(func() tea.Msg { return chatsChangedMsg{ids: []string{acpChat.ID}} })
	if v := r.m.View(); !strings.Contains(v, "mode     Code") {
		t.Fatalf("the summary after the mode changed:\n%s", v)
	}

	// The model, refused: the message shows in the chooser, which stays.
	r.key(runeKey('o'))
	d = r.m.dialog.(*OptionsDialog)
	for range 5 { // Code, Yolo, Model: Fast, Smart, Slow
		r.key(keyOf(tea.KeyDown))
	}
	if o, val := d.Current(); o != "model" || val != "slow" {
		t.Fatalf("the cursor is on %s=%s, want model=slow", o, val)
	}
	r.key(keyOf(tea.KeyEnter))
	if r.m.dialog != d || !strings.Contains(d.ErrText(), "slow is not on your plan") || !strings.Contains(r.m.View(), "slow is not on your plan") {
		t.Fatalf("a refused model: dialog %T, error %q\n%s", r.m.dialog, d.ErrText(), r.m.View())
	}
	// Then one it takes.
	r.key(keyOf(tea.KeyUp), keyOf(tea.KeyEnter))
	if r.m.dialog != nil || !strings.Contains(r.m.status, "Model is Smart now") {
		t.Fatalf("setting the model: dialog %T, status %q", r.m.dialog, r.m.status)
	}
	r.run(func() tea.Msg { return chatsChangedMsg{ids: []string{acpChat.ID}} })
	if v := r.m.View(); !strings.Contains(v, "model    Smart") || !strings.Contains(v, "mode     Code") {
		t.Fatalf("the summary after the model changed:\n%s", v)
	}
	want := []string{acpChat.ID + " mode=code", acpChat.ID + " model=slow", acpChat.ID + " model=smart"}
	if got := r.fake.options.sets; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("asked %q, want %q", got, want)
	}

	// esc closes, asking nothing.
	r.key(runeKey('o'), keyOf(tea.KeyDown), keyOf(tea.KeyEsc))
	if r.m.dialog != nil || len(r.fake.options.sets) != 3 {
		t.Fatalf("esc: dialog %T, asked %q", r.m.dialog, r.fake.options.sets)
	}

	// A chat whose agent has not run has none known yet.
	r.m.sidebar.Select(fresh.ID)
	r.run(r.m.selectionChanged())
	r.key(runeKey('o'))
	if d, ok := r.m.dialog.(*OptionsDialog); !ok || !strings.Contains(d.ErrText(), "its agent has not run yet") {
		t.Fatalf("o on a chat never started: %T %+v", r.m.dialog, r.m.dialog)
	}
	r.key(keyOf(tea.KeyEnter), keyOf(tea.KeyEsc))
	if r.m.dialog != nil || len(r.fake.options.sets) != 3 {
		t.Fatalf("enter with no options: dialog %T, asked %q", r.m.dialog, r.fake.options.sets)
	}

	r.m.sidebar.Select(shell.ID)
	r.run(r.m.selectionChanged())
	r.key(runeKey('o'))
	if r.m.dialog != nil || !strings.Contains(r.m.status, "only an ACP chat has modes and options") {
		t.Fatalf("o on a terminal chat: dialog %T, status %q", r.m.dialog, r.m.status)
	}
}
