package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file holds the summary's sandbox line of a sandboxed chat: while
// it runs, the bound its start applied (proto.State.Bound); otherwise why
// its last start was refused, or the bound its next start applies as the
// chat's server computes it from the stored lists and the harness's state
// (ChatJSON.Sandbox), which a chat file read here does not hold. The
// server is asked for the selected sandboxed chat (its chat call) when
// the selection moves to it and when the list is read again (its folders
// may have changed); the answer is kept by chat until the next.

// askBound asks e's server for e when e is sandboxed and its entry lacks
// the bound (a chat read from its file; another host's list carries it):
// the answer, a chatLoadedMsg, brings it. nil otherwise.
func (m *Model) askBound(e sessions.Entry) tea.Cmd {
	if e.Meta == nil || !e.Meta.Sandbox || e.Bound != nil {
		return nil
	}
	return reloadChat(m.mux, e.ID)
}

// keepBound keeps the bound a chat read from its server brings.
func (m *Model) keepBound(e sessions.Entry) {
	if e.Bound != nil {
		m.bounds[e.ID] = e.Bound
	}
}

// boundOf is the bound of e to show: its entry's, else the one its server
// last gave; nil before any.
func (m *Model) boundOf(e sessions.Entry) *proto.SandboxJSON {
	if e.Bound != nil {
		return e.Bound
	}
	return m.bounds[e.ID]
}

// boundLine is a sandboxed chat's Landlock bound in one line ("" for a
// chat that is not sandboxed): the bound in effect while it runs, else
// why its last start was refused (refused is set then), else the bound
// its next start applies as its server computes it, or why that cannot
// hold.
func boundLine(info ChatInfo) (text string, refused bool) {
	m, st := info.Entry.Meta, info.State
	if m == nil || !m.Sandbox {
		return "", false
	}
	if st.Status.Live() && st.Bound != "" {
		return st.Bound, false
	}
	if reason, ok := sandboxRefusal(firstNonEmpty(st.LastError, st.Reason)); ok && !st.Status.Live() {
		return "landlock · refused: " + reason, true
	}
	if b := info.Bound; b != nil && b.Refused != "" {
		return "landlock · refused: " + strings.TrimPrefix(b.Refused, "sandbox: "), true
	}
	if b := info.Bound; b != nil && b.Summary != "" {
		return b.Summary, false
	}
	if st.Bound != "" {
		return st.Bound, false
	}
	return "landlock · its bound is computed at each start", false
}

// wrapList cuts a line that lists things (joined by ", " and " · ") into
// at most rows lines of w cells, each broken after a comma or before a
// "·"; the last is cut with "…" when the rest does not fit.
func wrapList(text string, w, rows int) []string {
	text = plaintext.Line(text)
	var out []string
	for len(out) < rows-1 && ansi.StringWidth(text) > w {
		line, rest := "", ""
		for i := 0; i < len(text); i++ {
			var l, r string
			switch {
			case strings.HasPrefix(text[i:], ", "):
				l, r = text[:i+1], text[i+2:]
			case strings.HasPrefix(text[i:], " · "):
				l, r = text[:i], text[i+1:]
			default:
				continue
			}
			if ansi.StringWidth(l) > w {
				break
			}
			line, rest = l, r
		}
		if line == "" {
			break
		}
		out, text = append(out, line), rest
	}
	return append(out, truncPlain(text, w))
}

// sandboxRefusal is the reason a chat's bound refused its start, read off
// the start's error ("chat ID: sandbox: REASON", the reason perhaps led
// by "sandbox: " again); false for any other error.
func sandboxRefusal(msg string) (string, bool) {
	head, reason, ok := strings.Cut(firstLine(msg), ": sandbox: ")
	id, isChat := strings.CutPrefix(head, "chat ")
	if !ok || !isChat || id == "" || strings.ContainsRune(id, ' ') {
		return "", false
	}
	return strings.TrimPrefix(reason, "sandbox: "), true
}
