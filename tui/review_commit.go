package tui

import (
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the review pane's git actions on a worktree chat's branch:
// c commits everything in its worktree (a message prompt, the chat's title,
// else its name, typed in already), P pushes its branch, m merges it into
// the branch it came from; P and m ask first. The chat's server does the
// work (GitOps), on the chat's host, in a command; the pane says what was
// done, or the refusal, on its last line, and reviews the chat again.

var (
	keyReviewCommit = key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "commit"))
	keyReviewPush   = key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "push"))
	keyReviewMerge  = key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "merge"))
	keyReviewDo     = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "commit"))
)

// GitOps is what the review pane's git actions need of the server:
// client.Router's GitOp, the action done by the chat's host.
type GitOps interface {
	GitOp(id string, action proto.GitAction, message string) (proto.GitOpResult, error)
}

// gitOpMsg carries what a git action did, or why it did not.
type gitOpMsg struct {
	owner int
	res   proto.GitOpResult
	err   error
}

// reviewGit is the review pane's git state: the message being typed, the
// action waiting for y, the action running, the last result.
type reviewGit struct {
	typing  bool
	input   textinput.Model
	confirm proto.GitAction // push or merge, asked
	running proto.GitAction
	said    string // the last action's summary and note
}

func newReviewGit() reviewGit {
	in := textinput.New()
	in.Prompt = "commit message: "
	in.CharLimit = 1000
	in.Cursor.SetMode(cursor.CursorStatic)
	return reviewGit{input: in}
}

// gitUpdate takes the messages and keys of the git actions; done is false
// for what the rest of the pane handles.
func (d *ReviewDialog) gitUpdate(msg tea.Msg) (cmd tea.Cmd, done bool) {
	g := &d.git
	switch msg := msg.(type) {
	case gitOpMsg:
		if msg.owner != d.owner {
			return nil, true
		}
		g.running = ""
		if msg.err != nil {
			d.errText = plaintext.Line(msg.err.Error())
			return nil, true
		}
		g.said = msg.res.Summary
		if msg.res.Note != "" {
			g.said += " · " + msg.res.Note
		}
		g.said = plaintext.Line(g.said)
		// What the chat changed is not what it was: review it again.
		d.loading, d.pending = true, d.side
		return computeReview(d.owner, d.reviews, d.meta.ID, d.side), true
	case tea.KeyMsg:
		switch {
		case g.typing:
			return d.messageKey(msg), true
		case g.confirm != "":
			action := g.confirm
			g.confirm = ""
			if key.Matches(msg, keyYes) {
				return d.runGit(action, ""), true
			}
			return nil, true
		case d.asking:
			return nil, false
		case g.running != "":
			// One action at a time; the rest of the pane still works.
			return nil, key.Matches(msg, keyReviewCommit, keyReviewPush, keyReviewMerge)
		case key.Matches(msg, keyReviewCommit):
			if !d.gitReady() {
				return nil, true
			}
			g.typing = true
			g.input.SetValue(plaintext.Line(defaultCommitMessage(d.meta.Title, d.meta.Name)))
			g.input.CursorEnd()
			g.input.Width = max(d.w-20, 1)
			return g.input.Focus(), true
		case key.Matches(msg, keyReviewPush):
			if d.gitReady() {
				g.confirm = proto.GitPush
			}
			return nil, true
		case key.Matches(msg, keyReviewMerge):
			if d.gitReady() {
				g.confirm = proto.GitMerge
			}
			return nil, true
		}
	}
	return nil, false
}

// defaultCommitMessage is the message a commit starts with: the title the
// chat's agent gave it, else its name (as the server's default).
func defaultCommitMessage(title, name string) string {
	if t := strings.TrimSpace(title); t != "" {
		return t
	}
	return name
}

// gitReady says whether the chat's branch can be acted on from here, and
// says why not in the pane when it cannot.
func (d *ReviewDialog) gitReady() bool {
	d.errText, d.git.said = "", ""
	if d.meta.Worktree == nil {
		d.errText = "not a worktree chat: commit, push and merge act on a chat's own branch, which only a chat made with a worktree has"
		return false
	}
	if _, ok := d.reviews.(GitOps); !ok {
		d.errText = "this client cannot ask the server for git actions"
		return false
	}
	return true
}

// messageKey edits the commit message: enter commits, esc leaves it.
func (d *ReviewDialog) messageKey(msg tea.KeyMsg) tea.Cmd {
	g := &d.git
	switch {
	case key.Matches(msg, keyCancel):
		g.typing = false
		g.input.Blur()
		return nil
	case key.Matches(msg, keyReviewDo):
		g.typing = false
		g.input.Blur()
		return d.runGit(proto.GitCommit, strings.TrimSpace(g.input.Value()))
	}
	var cmd tea.Cmd
	g.input, cmd = g.input.Update(msg)
	return cmd
}

// runGit asks the chat's server for action, off the UI goroutine.
func (d *ReviewDialog) runGit(action proto.GitAction, message string) tea.Cmd {
	ops, ok := d.reviews.(GitOps)
	if !ok {
		return nil
	}
	d.git.running, d.errText, d.git.said = action, "", ""
	owner, id := d.owner, d.meta.ID
	return func() tea.Msg {
		res, err := ops.GitOp(id, action, message)
		return gitOpMsg{owner: owner, res: res, err: err}
	}
}

// gitLine is the pane's last line while a git action is typed, asked,
// running or just done ("" when none is).
func (d *ReviewDialog) gitLine(iw int) string {
	g, st := &d.git, d.c.Styles
	branch := "its branch"
	if d.meta.Worktree != nil {
		branch = d.meta.Worktree.Branch
	}
	switch {
	case g.typing:
		return g.input.View()
	case g.confirm == proto.GitPush:
		return st.Bold.Render(truncPlain("push "+branch+" to its upstream (else origin)? y push · esc no", iw))
	case g.confirm == proto.GitMerge:
		return st.Bold.Render(truncPlain("merge "+branch+" into the branch it came from? y merge · esc no", iw))
	case g.running != "":
		return st.Dim.Render(truncPlain(string(g.running)+" "+branch+"…", iw))
	case g.said != "" && d.errText == "":
		return st.OK.Render(truncPlain(g.said, iw))
	}
	return ""
}

// gitKeys are c, P and m for the help bar, shown for a worktree chat only.
func (d *ReviewDialog) gitKeys() []key.Binding {
	if d.meta.Worktree == nil {
		return nil
	}
	return []key.Binding{keyReviewCommit, keyReviewPush, keyReviewMerge}
}

// gitHelp is the pane's keys while a git action is typed or asked (nil
// otherwise).
func (d *ReviewDialog) gitHelp() []key.Binding {
	switch {
	case d.git.typing:
		return []key.Binding{keyReviewDo, keyCancel}
	case d.git.confirm != "":
		return []key.Binding{keyYes, keyNo}
	}
	return nil
}
