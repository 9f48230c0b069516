package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// labelWidth is the width of the summary's left column of labels.
const labelWidth = 9

// ChatInfo is what the summary pane shows of one chat, gathered by the root
// model from the list, the mux and the last folder check.
type ChatInfo struct {
	Entry sessions.Entry
	State proto.State
	// Problems are the stored folders and files that fail the validator
	// now (a file's has Field proto.FieldFiles).
	Problems []proto.FolderProblem
	// NoProject is set when the chat runs in its own home folder.
	NoProject bool
	// Transport is "pty" or "acp"; Via says how its folders reach it, and
	// ViaExpected that this is the table's expectation (not started yet).
	Transport, Via string
	ViaExpected    bool
	// FilesVia says how its single files reach it: the way they went at
	// its last start, before its first the table's expectation.
	FilesVia string
	// ParentGone is set when the chat it was made from has been deleted.
	ParentGone bool
	// NotInstalled is set when the chat's harness is not found on PATH.
	NotInstalled bool
	// StartsFresh is set when the chat's harness cannot resume a
	// conversation (harness.Spec.Resumes): every start is a new one.
	StartsFresh bool
	// GitFolders are the additional folders that are git repositories;
	// WorktreeGone is set when a worktree chat's folder has gone (both
	// from the last folder check).
	GitFolders   []string
	WorktreeGone bool
	// Bound is a sandboxed chat's bound as its server computes it for the
	// next start (nil until it has answered).
	Bound *proto.SandboxJSON
}

// Summary is the pane above the chat: the selected chat's harness, folders
// and single files, how they reach the harness, its session and its
// process.
type Summary struct {
	c     *Common
	w, h  int
	info  ChatInfo
	has   bool
	now   time.Time
	lines []string
}

// NewSummary returns an empty summary pane.
func NewSummary(c *Common) *Summary { return &Summary{c: c} }

// SetSize sets the inner size and lays the pane out again.
func (s *Summary) SetSize(w, h int) {
	s.w, s.h = w, h
	s.render()
}

// Set shows a chat (has false shows nothing) as of now.
func (s *Summary) Set(info ChatInfo, has bool, now time.Time) {
	s.info, s.has, s.now = info, has, now
	s.render()
}

// Tick moves the clock the uptime is counted on.
func (s *Summary) Tick(now time.Time) {
	s.now = now
	if s.has && s.info.State.Status.Live() {
		s.render()
	}
}

// View returns the pane's lines.
func (s *Summary) View() []string { return s.lines }

func (s *Summary) render() {
	s.lines = s.lines[:0]
	if !s.has || s.w < 12 || s.h < 1 {
		return
	}
	st := s.c.Styles
	cw := s.w - 1 // one column of left padding
	row := func(label, text string) string {
		return " " + st.Dim.Render(fmt.Sprintf("%-*s", labelWidth, label)) + text
	}
	vw := cw - labelWidth // width of a value
	e, info := s.info.Entry, s.info
	if e.Meta == nil {
		s.lines = append(s.lines, " "+st.Bold.Render(truncPlain(e.ID, cw)))
		msg := "broken file"
		if e.Broken != nil {
			msg = e.Broken.Error()
		}
		for _, l := range strings.Split(msg, "\n") {
			if len(s.lines) < s.h {
				s.lines = append(s.lines, row("broken", st.Warn.Render(truncPlain(strings.TrimSpace(l), vw))))
			}
		}
		s.fit()
		return
	}
	m := e.Meta
	title := st.Bold.Render(truncPlain(summaryName(m), cw-10)) + "  " + st.Dim.Render(m.ID)
	origin := ""
	if m.Origin != "" {
		origin = m.Origin
		if m.Parent != "" {
			origin += " of " + plaintext.Line(m.Parent) // the chat file's, unchecked
			if info.ParentGone {
				origin += " (deleted)"
			}
		}
		title += st.Dim.Render(" · " + origin)
	}
	h := m.Harness
	if info.NotInstalled {
		h += " (not installed)"
	}
	if info.Transport != "" { // a host's chat not started here: its server knows
		h += " · " + info.Transport
	}
	if info.State.AgentName != "" {
		h += " · " + info.State.AgentName
	}
	h += " · folders via " + info.Via
	if info.ViaExpected {
		h += " (expected)"
	}
	harnessStyle := st.Plain
	if info.NotInstalled {
		harnessStyle = st.Warn
	}
	head := []string{" " + title, row("harness", harnessStyle.Render(truncPlain(h, vw)))}
	// A sandboxed chat's bound (on two lines when it needs them: a
	// harness's state folders make it long), then a Codex chat's own
	// sandbox, under one label.
	var sandbox []string
	label := "sandbox"
	if bound, refused := boundLine(info); bound != "" {
		style := st.Plain
		if refused {
			style = st.Error
		}
		for _, l := range wrapList(bound, vw, 2) {
			sandbox, label = append(sandbox, row(label, style.Render(l))), ""
		}
	}
	if sb := sandboxLine(info.State); sb != "" {
		style := st.Plain
		if info.State.FoldersReadOnly {
			style = st.Warn
		}
		sandbox = append(sandbox, row(label, style.Render(truncPlain(sb, vw))))
	}
	if s.h < 8+len(m.AdditionalDirectories)+s.fileRows() {
		// Short of room: the harness goes on the title line, and then,
		// as far as it fits, where the chat came from.
		name := truncPlain(summaryName(m), max(cw/3, 8))
		rest := max(cw-ansi.StringWidth(name)-len(m.ID)-4, 0)
		hs := truncPlain(h, rest)
		title = st.Bold.Render(name) + "  " + st.Dim.Render(m.ID) + "  " + harnessStyle.Render(hs)
		if rest -= ansi.StringWidth(hs); origin != "" && rest > 3 {
			title += st.Dim.Render(truncPlain(" · "+origin, rest))
		}
		head = []string{" " + title}
	}
	if m.Title != "" {
		// The agent's title for its session (the chat file's, checked).
		head = append(head, row("title", truncPlain(plaintext.Line(m.Title), vw)))
	}
	// The sandbox decides what the harness may write (a Codex chat's
	// whether the folders are writable), so it keeps its lines even when
	// room is short.
	head = append(head, sandbox...)
	if info.NoProject {
		const noProject = "no project · "
		head = append(head, row("cwd", st.Dim.Render(noProject+truncPathLeft(m.Cwd, max(vw-ansi.StringWidth(noProject), 1)))))
	} else {
		head = append(head, row("cwd", truncPathLeft(m.Cwd, vw)))
	}
	head = append(head, s.worktreeLines(row, vw)...)
	switch {
	case m.Capsule && m.Origin == sessions.OriginFork:
		head = append(head, row("capsule", truncPlain(noteCapsuleFork, vw)))
	case m.Capsule:
		head = append(head, row("capsule", truncPlain("its first message: what was said in "+m.Parent, vw)))
	}
	if p := pendingLine(info.State); p != "" {
		head = append(head, row("pending", st.Warn.Render(truncPlain(p, vw))))
	}

	// The lines below the folders, least needed first: they are dropped in
	// that order when the pane is short.
	var session, context, command, errLine string
	u := info.State.Usage
	if u == nil {
		u = m.Usage() // as last said, kept in the chat file
	}
	switch {
	case u != nil && u.Size > 0:
		// What the agent said of its context window (checked where it
		// entered).
		style := st.Plain
		if u.Percent() >= 90 {
			style = st.Warn
		}
		context = row("context", style.Render(truncPlain(contextLine(u), vw)))
	case u != nil && u.Cost != nil:
		context = row("cost", truncPlain(u.Cost.String(), vw))
	}
	if sid := firstNonEmpty(info.State.SessionID, m.AgentSessionID); sid != "" {
		session = row("session", truncPlain(sid, vw))
	} else if info.StartsFresh {
		session = row("session", st.Dim.Render(truncPlain(harness.StartsFresh, vw)))
	}
	if argv := info.State.Argv; len(argv) > 0 {
		// The command as configured (argv[0] as the config names it, a
		// path included), not cut to a base name that reads like the
		// harness's name; only a path too long to leave room for the
		// arguments (which matter more) loses its folder to "…/".
		shown := harness.Shown(argv)
		if i := strings.LastIndexByte(shown[0], '/'); i > 0 && ansi.StringWidth(strings.Join(shown, " ")) > vw {
			shown[0] = "…" + shown[0][i:]
		}
		command = row("command", st.Dim.Render(truncPlain(strings.Join(shown, " "), vw)))
	}
	if msg := firstNonEmpty(info.State.LastError, info.State.Reason); msg != "" && (info.State.Status == proto.StatusFailed || info.State.LastError != "") {
		if said := info.State.LastOutput; said != "" {
			// What the harness last printed says why; it comes first, so
			// a narrow pane cuts the exit status rather than the reason.
			msg = `"` + said + `" · ` + firstLine(msg)
		}
		if info.State.Status.Live() {
			errLine = row("last err", st.Dim.Render(truncPlain(firstLine(msg), vw)))
		} else {
			errLine = row("error", st.Error.Render(truncPlain(firstLine(msg), vw)))
		}
	}
	settings := settingLines(row, info.State.Settings, vw)
	signIn := signInLines(row, info.State.SignIn, s.c.Keys.SignIn.Help().Key, vw)
	optional := len(settings) + len(signIn)
	for _, l := range []string{session, context, command, errLine} {
		if l != "" {
			optional++
		}
	}
	// The process line, two folder lines (one when there is one), and the
	// files: a chat's folders, its files and how they reach it come before
	// its session and command lines.
	room := s.h - len(head) - 1 - min(max(len(m.AdditionalDirectories), 1), 2) - s.fileRows()
	if optional > room && command != "" {
		command, optional = "", optional-1
	}
	if optional > room && session != "" {
		session, optional = "", optional-1
	}
	for optional > room && len(settings) > 0 {
		settings, optional = settings[:len(settings)-1], optional-1
	}
	if optional > room && context != "" {
		context, optional = "", optional-1
	}
	for optional > room && len(signIn) > 0 {
		signIn, optional = signIn[:len(signIn)-1], optional-1
	}
	var tail []string
	for _, l := range append(append(append([]string{session, context}, settings...), row("process", s.process(vw)), command, errLine), signIn...) {
		if l != "" {
			tail = append(tail, l)
		}
	}
	budget := s.h - len(head) - len(tail)
	// The files share the folders' room: all of both when it holds them,
	// else about half each, the folders keeping at least one line.
	folderNeed, fileNeed := max(len(m.AdditionalDirectories), 1), s.fileRows()
	fileBudget := fileNeed
	if budget < folderNeed+fileNeed {
		fileBudget = min(fileNeed, max(budget/2, budget-folderNeed), max(budget-1, 0))
	}
	folders := s.folderLines(row, vw, max(budget-fileBudget, 1))
	files := s.fileLines(row, vw, fileBudget)
	s.lines = append(s.lines, head...)
	s.lines = append(s.lines, folders...)
	s.lines = append(s.lines, files...)
	s.lines = append(s.lines, tail...)
	if len(s.lines) > s.h {
		s.lines = s.lines[:s.h]
	}
	s.fit()
}

// contextBarWidth is the width of the context line's bar.
const contextBarWidth = 10

// contextLine is a context window as a bar and words: "████░░░░░░ 41 %
// of 200k", then " · 0.42 USD" when the agent said a cost. u.Size > 0.
func contextLine(u *proto.Usage) string {
	p := u.Percent()
	full := min(p*contextBarWidth/100, contextBarWidth)
	if full == 0 && u.Used > 0 {
		full = 1 // a context in use never reads as empty
	}
	line := strings.Repeat("█", full) + strings.Repeat("░", contextBarWidth-full) +
		fmt.Sprintf(" %d %% of %s", p, proto.Tokens(u.Size))
	if c := u.Cost; c != nil {
		line += " · " + c.String()
	}
	return line
}

// sandboxLine is a Codex chat's sandbox and who chose it, and, when it
// cannot take writable roots, that the folders are readable, not writable;
// "" for other harnesses.
func sandboxLine(st proto.State) string {
	if st.Sandbox == "" {
		return ""
	}
	if st.FoldersReadOnly {
		return st.Sandbox + " · folders readable, not writable"
	}
	return st.Sandbox
}

// pendingLine says what a pending change of folders and files adds and
// removes, and when it takes effect; "" when none is pending.
func pendingLine(st proto.State) string {
	if !st.Pending() {
		return ""
	}
	var parts []string
	if st.PendingDirectories != nil {
		added, removed := st.PendingChange()
		parts = changeParts(parts, added, removed, "reorders the folders")
	}
	if st.PendingFiles != nil {
		added, removed := st.PendingFileChange()
		parts = changeParts(parts, added, removed, "reorders the files")
	}
	when := " " + proto.PendingAtTurnEnd
	if st.PendingUntilRestart {
		when = " " + proto.PendingAtRestart + " (r): this harness " + harness.StartsFresh
	}
	return strings.Join(parts, " · ") + when
}

// changeParts adds to parts what one list's change adds and removes, or
// reorder when it only reorders.
func changeParts(parts, added, removed []string, reorder string) []string {
	if len(added) > 0 {
		parts = append(parts, "adds "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "removes "+strings.Join(removed, ", "))
	}
	if len(added) == 0 && len(removed) == 0 {
		parts = append(parts, reorder)
	}
	return parts
}

// fit pads or cuts every line to the pane's width once, so frames need not
// measure them.
func (s *Summary) fit() {
	for i, l := range s.lines {
		s.lines[i] = fitLine(l, s.w)
	}
}

// folderLines lists the additional folders in at most n lines, a missing
// one flagged with its reason and the key that removes it.
func (s *Summary) folderLines(row func(string, string) string, vw, n int) []string {
	m := s.info.Meta()
	if len(m.AdditionalDirectories) == 0 {
		return []string{row("folders", s.c.Styles.Dim.Render("none"))}
	}
	return s.pathLines(row, vw, n, "folders", m.AdditionalDirectories, s.problemsOf(""))
}

// fileLines lists the chat's single files in at most n lines, as the
// folders are listed, and then, room allowing, how they reach the harness.
// A chat without files has no lines for them.
func (s *Summary) fileLines(row func(string, string) string, vw, n int) []string {
	m := s.info.Meta()
	if len(m.AdditionalFiles) == 0 || n < 1 {
		return nil
	}
	if n == 1 {
		return s.pathLines(row, vw, 1, "files", m.AdditionalFiles, s.problemsOf(proto.FieldFiles))
	}
	lines := s.pathLines(row, vw, n-1, "files", m.AdditionalFiles, s.problemsOf(proto.FieldFiles))
	via := "↳ via " + sessions.FilesViaWords(s.info.FilesVia)
	return append(lines, row("", s.c.Styles.Dim.Render(truncPlain(via, vw))))
}

// fileRows is how many lines the chat's files would take, all shown.
func (s *Summary) fileRows() int {
	if n := len(s.info.Meta().AdditionalFiles); n > 0 {
		return n + 1
	}
	return 0
}

// problemsOf is the reason each stored entry of one list fails now, by
// index: field "" for the folders, proto.FieldFiles for the files.
func (s *Summary) problemsOf(field string) map[int]string {
	bad := map[int]string{}
	for _, p := range s.info.Problems {
		if p.Field == field {
			bad[p.Index] = p.Reason
		}
	}
	return bad
}

// pathLines lists paths under label in at most n lines, a missing one
// (bad: its reason, by index) flagged with the reason and the key that
// removes it; when they do not all fit, the missing ones come first.
func (s *Summary) pathLines(row func(string, string) string, vw, n int, label string, paths []string, bad map[int]string) []string {
	st := s.c.Styles
	removeKey := s.c.Keys.RemoveMissing.Help().Key
	order := make([]int, 0, len(paths))
	if n < len(paths) {
		for i := range paths {
			if _, missing := bad[i]; missing {
				order = append(order, i)
			}
		}
	}
	for i := range paths {
		if _, missing := bad[i]; !missing || n >= len(paths) {
			order = append(order, i)
		}
	}
	if n == 1 && len(order) > 1 {
		// One line for several: the first of them, and how many more,
		// rather than a count alone that shows none of them.
		missing := 0
		for _, j := range order {
			if _, gone := bad[j]; gone {
				missing++
			}
		}
		_, firstMissing := bad[order[0]]
		return []string{row(label, s.crowdedLine(vw, paths[order[0]], firstMissing, len(order)-1, missing, removeKey))}
	}
	var out []string
	for k, i := range order {
		d := paths[i]
		l := ""
		if k == 0 {
			l = label
		}
		if len(out) == n-1 && k < len(order)-1 {
			more := len(order) - k
			missingLeft := 0
			for _, j := range order[k:] {
				if _, missing := bad[j]; missing {
					missingLeft++
				}
			}
			note := fmt.Sprintf("… %d more", more)
			if missingLeft > 0 {
				note += fmt.Sprintf(" (%d missing: %s removes them)", missingLeft, removeKey)
			}
			out = append(out, row(l, st.Dim.Render(truncPlain(note, vw))))
			break
		}
		reason, missing := bad[i]
		if !missing {
			if label == "folders" && s.info.isGitFolder(d) {
				const tag = " · git"
				out = append(out, row(l, truncPathLeft(d, max(vw-len(tag), 1))+st.Dim.Render(tag)))
				continue
			}
			out = append(out, row(l, truncPathLeft(d, vw)))
			continue
		}
		flag := "✗ " + reason + " · " + removeKey + " removes it"
		pathW := min(ansi.StringWidth(d), max(vw-ansi.StringWidth(flag)-2, vw/2))
		text := truncPathLeft(d, pathW)
		if rest := vw - ansi.StringWidth(text) - 2; rest > 3 {
			text = st.Warn.Render(text) + "  " + st.Warn.Render(truncPlain(flag, rest))
		} else {
			text = st.Warn.Render(text)
		}
		out = append(out, row(l, text))
	}
	return out
}

// crowdedLine is pathLines' one line for several paths: first (flagged
// when it is missing), then "… K more", with how many of all are missing
// and the key that removes them; the path keeps at least half the width.
func (s *Summary) crowdedLine(vw int, first string, firstMissing bool, more, missing int, removeKey string) string {
	st := s.c.Styles
	note := fmt.Sprintf("… %d more", more)
	if missing > 0 {
		note += fmt.Sprintf(" (%d missing: %s removes them)", missing, removeKey)
	}
	path := truncPathLeft(first, min(ansi.StringWidth(first), max(vw-ansi.StringWidth(note)-2, vw/2)))
	text := path
	if firstMissing {
		text = st.Warn.Render(path)
	}
	if rest := vw - ansi.StringWidth(path) - 2; rest > 3 {
		text += "  " + st.Dim.Render(truncPlain(note, rest))
	}
	return text
}

// Meta returns the chat's metadata; only called for chats that parse.
func (i ChatInfo) Meta() *sessions.Meta { return i.Entry.Meta }

// process describes the harness process: status, pid, uptime, restarts.
func (s *Summary) process(vw int) string {
	st := s.c.Styles
	state := s.info.State
	mark := st.Mark(state, false)
	var parts []string
	switch state.Status {
	case proto.StatusStopped:
		switch {
		case state.Pid == 0 && state.Started.IsZero() && s.info.NotInstalled:
			parts = append(parts, "not started · its harness is not installed")
		case state.Pid == 0 && state.Started.IsZero():
			parts = append(parts, "not started · "+s.c.Keys.Focus.Help().Key+" starts it")
		default:
			parts = append(parts, "stopped")
		}
	case proto.StatusExited:
		parts = append(parts, "exited ("+firstNonEmpty(state.Reason, fmt.Sprintf("exit status %d", state.ExitCode))+")")
	case proto.StatusFailed:
		parts = append(parts, "failed")
	default:
		word := state.Status.String()
		switch state.Status {
		case proto.StatusWaiting:
			word = "waiting for input"
		case proto.StatusAsking:
			word = "asking for your answer"
		}
		if state.Unread {
			word += " •"
		}
		if from := state.StatusFrom.Short(); from != "" {
			word += " (" + from + ")"
		}
		if state.TurnActive {
			word += " · turn running"
		}
		parts = append(parts, word)
		if state.Pid > 0 {
			parts = append(parts, fmt.Sprintf("pid %d", state.Pid))
		}
		if !state.Started.IsZero() && !s.now.IsZero() {
			parts = append(parts, "up "+formatUptime(s.now.Sub(state.Started)))
		}
	}
	if state.Restarts > 0 {
		parts = append(parts, plural(state.Restarts, "restart"))
	}
	return mark + " " + truncPlain(strings.Join(parts, " · "), vw-2)
}

// formatUptime writes a duration as <1m, 3m, 2h05m or 3d04h: to the
// minute, so the line changes once a minute (once an hour past a day) and
// an idle TUI need not draw every second.
func formatUptime(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// untilUptimeTurns is how long after an uptime of d formatUptime writes
// something else.
func untilUptimeTurns(d time.Duration) time.Duration {
	step := time.Minute
	if d >= 24*time.Hour {
		step = time.Hour
	}
	d = max(d, 0)
	return step - d%step
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// settingLines are an ACP chat's mode and options as its agent last said
// them (State.Settings, cleaned by the mux), a line each: the option's
// name, in small letters, as the label, its current value's name beside.
func settingLines(row func(string, string) string, settings []proto.Setting, vw int) []string {
	var out []string
	for _, set := range settings {
		out = append(out, row(truncPlain(strings.ToLower(set.Name), labelWidth-1), truncPlain(set.Value, vw)))
	}
	return out
}

// summaryName is the chat's name for the summary's title, which shows its
// id beside it: a name Create gave it (its folder's or harness's name and
// its id) without the id, so the title says it once.
func summaryName(m *sessions.Meta) string {
	if m.DefaultNamed() {
		if n, ok := strings.CutSuffix(m.Name, " "+m.ID); ok && n != "" {
			return n
		}
	}
	return m.Name
}
