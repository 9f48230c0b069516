package tui

import (
	"fmt"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/sessions"
)

// forkAskMsg brings what the fork key needs to know before it forks: the
// chat, and whether its folder is in a git repository (then the fork
// dialog asks about a worktree; elsewhere the chat forks at once).
type forkAskMsg struct {
	entry  sessions.Entry
	inRepo bool
}

// askFork looks (off the UI goroutine: it stats the folders up from the
// chat's) whether e's folder is in a git repository.
func askFork(e sessions.Entry) tea.Cmd {
	cwd := ""
	if e.Meta != nil && !e.NoProject {
		cwd = e.Meta.Cwd
	}
	return func() tea.Msg {
		return forkAskMsg{entry: e, inRepo: cwd != "" && inGitRepo(cwd)}
	}
}

// forkAsked forks at once a chat outside any repository, and opens the
// fork dialog for one in a repository: its worktree choice starts on for
// a worktree chat's fork (as `fork` does), else at the config's default;
// its sandbox choice starts at the parent's.
func (m *Model) forkAsked(msg forkAskMsg) tea.Cmd {
	e := msg.entry
	if e.Meta == nil {
		return nil
	}
	parentHas := e.Meta.Worktree != nil
	if !msg.inRepo && !parentHas {
		// Nothing to ask: the server gives no worktree, and the fork
		// keeps the parent's sandbox (sessions.Derivation.Sandbox nil),
		// as `fork` does.
		return m.fork(e, nil, nil)
	}
	return m.openDialog(NewForkDialog(m.c, e, parentHas, parentHas || m.worktreeOn, func(wt bool, sandbox *bool) tea.Cmd {
		return m.fork(e, &wt, sandbox)
	}))
}

// ForkDialog asks, for a chat in a git repository, whether its fork gets
// a git worktree of its own and whether it is sandboxed; enter forks, the
// worktree and the sandbox keys turn the choices.
type ForkDialog struct {
	c         *Common
	title     string
	parentHas bool
	worktree  bool
	// sandbox starts at the parent's; toggled is set once the key has
	// turned it (untouched, the fork keeps the parent's).
	sandbox, toggled bool
	fork             func(worktree bool, sandbox *bool) tea.Cmd
	w                int
}

// NewForkDialog returns the dialog for a fork of e; parentHas says e has
// a worktree, on the worktree choice the dialog starts with; fork makes
// the command that forks, with the sandbox asked for (nil: the parent's).
func NewForkDialog(c *Common, e sessions.Entry, parentHas, on bool, fork func(worktree bool, sandbox *bool) tea.Cmd) *ForkDialog {
	d := &ForkDialog{c: c, title: fmt.Sprintf("fork %q", e.Name()), parentHas: parentHas, worktree: on, fork: fork}
	d.sandbox = e.Meta != nil && e.Meta.Sandbox
	return d
}

// Worktree reports whether the fork is to get a git worktree of its own.
func (d *ForkDialog) Worktree() bool { return d.worktree }

// Sandbox reports whether the fork is to be sandboxed.
func (d *ForkDialog) Sandbox() bool { return d.sandbox }

var keyFork = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "fork"))

// SetSize sets the screen size.
func (d *ForkDialog) SetSize(w, h int) { d.w = max(min(w-4, 76), minDialogW) }

// Update turns the choice or forks.
func (d *ForkDialog) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, d.c.Keys.Worktree):
		d.worktree = !d.worktree
	case key.Matches(k, d.c.Keys.Sandbox):
		d.sandbox, d.toggled = !d.sandbox, true
	case key.Matches(k, keyFork):
		var sandbox *bool
		if d.toggled {
			v := d.sandbox
			sandbox = &v
		}
		return tea.Batch(closeDialog, d.fork(d.worktree, sandbox))
	case key.Matches(k, keyCancel):
		return closeDialog
	}
	return nil
}

// ShortHelp returns enter, the worktree and sandbox keys and esc.
func (d *ForkDialog) ShortHelp() []key.Binding {
	return []key.Binding{keyFork, d.c.Keys.Worktree, d.c.Keys.Sandbox, keyCancel}
}

// View draws the choice.
func (d *ForkDialog) View() []string {
	st := d.c.Styles
	iw := d.w - 4
	what := "The fork runs in the same folder as its parent."
	if d.worktree && d.parentHas {
		what = "Its worktree starts at the parent's branch tip, with the parent's uncommitted work."
	} else if d.worktree {
		what = "Its worktree starts at the repository's HEAD, with the folder's uncommitted work."
	}
	lines := []string{"",
		" " + st.Dim.Render(fitPlain("worktree", 10)) + worktreeChoice(st, d.c.Keys.Worktree, d.worktree, iw-11),
		" " + st.Dim.Render(truncPlain(what, iw-1)),
		" " + st.Dim.Render(fitPlain("sandbox", 10)) + sandboxChoice(st, d.c.Keys.Sandbox, d.sandbox, "", iw-11),
		"",
		" " + st.HelpKey.Render("enter") + st.Dim.Render(" fork   ") + st.HelpKey.Render("esc") + st.Dim.Render(" cancel"),
	}
	return st.Box(d.title, lines, d.w, len(lines)+2, true)
}

// forkNote says what a fork just made really carries: the harness's own
// fork of the conversation, a capsule of it (and whether it will be sent),
// or nothing, when nothing was said yet.
func (m *Model) forkNote(meta *sessions.Meta) string {
	name := "forked " + meta.Name + ": "
	var spec harness.Spec
	known := false
	if m.table != nil && hostOf(meta.ID) == "" {
		spec, known = m.table.Get(meta.Harness)
	}
	native, maybe := spec.NativeFork()
	switch {
	case !meta.Capsule && known && native:
		return name + meta.Harness + "'s own fork of the conversation, at its first start"
	case !meta.Capsule:
		return name + "nothing was said yet: it starts fresh, with the same folders"
	case known && !spec.TakesInitialPrompt():
		return name + "a capsule of what was said is kept, never sent: " + meta.Harness + " takes no first message"
	case known && maybe:
		return name + "the agent's own fork at its first start where it has one, else a capsule of what was said as its first message"
	}
	return name + "a capsule of what was said, sent as its first message at its first start (" + meta.Harness + " has no fork of its own)"
}
