package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/capsule"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file shows the capsule of a handoff (or of a fork whose harness
// cannot branch a conversation), which the chat service writes, and lets
// `handoff --edit` change it before the chat is made.

// errNoEditor refuses --edit when no editor is set.
var errNoEditor = usageError{msg: "--edit needs an editor: set EDITOR (for example EDITOR=vi)"}

// editCapsule opens $EDITOR on the capsule in a temporary file (0600) and
// returns what the user saved. An editor that fails, or an emptied
// capsule, makes no chat.
func (a *app) editCapsule(text string) (string, error) {
	editor := strings.Fields(a.getenv("EDITOR"))
	if len(editor) == 0 {
		return "", errNoEditor
	}
	f, err := os.CreateTemp("", "acpmux-capsule-*.md")
	if err != nil {
		return "", fmt.Errorf("edit capsule: %w", err)
	}
	path := f.Name()
	defer os.Remove(path)
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("edit capsule: %w", err)
	}
	cmd := exec.Command(editor[0], append(editor[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("edit capsule: %s: %w (no chat created)", a.getenv("EDITOR"), err)
	}
	g, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("edit capsule: %w", err)
	}
	defer g.Close()
	data, err := io.ReadAll(io.LimitReader(g, sessions.MaxCapsuleBytes+1))
	if err != nil {
		return "", fmt.Errorf("edit capsule: %w", err)
	}
	edited := string(data)
	if err := sessions.CheckCapsule(edited); err != nil {
		return "", fmt.Errorf("edit capsule: %w (no chat created)", err)
	}
	if strings.TrimSpace(edited) == "" {
		return "", errors.New("the capsule is empty: no chat created")
	}
	// As the store keeps it.
	return sessions.StripBidi(edited), nil
}

// chatWithCapsule is a chat as `--json` prints it, with the capsule it
// starts with and how many credentials were redacted in it.
type chatWithCapsule struct {
	proto.ChatJSON
	Capsule    string `json:"capsule"`
	Redactions int    `json:"redactions"`
}

// withCapsule is chat as `--json` prints it with its capsule.
func withCapsule(chat proto.ChatJSON, text string) chatWithCapsule {
	return chatWithCapsule{chat, text, capsule.CountMarks(text).Total()}
}

// capsuleStored tells on stderr, before any start sends it, where a new
// chat's capsule is, what was redacted in it, and whether a start sends it
// (as `show` says it): a capsule the user did not review (no --edit) is
// never handed on unseen. stdout stays what --json scripts read. A host's
// chat is told as sent: the host's table decides, and its `show` says.
func (t *target) capsuleStored(m *sessions.Meta, text string) {
	where, fate := t.a.store.HandoffPath(m.ID), "sent as its first message at its first start"
	if t.host != "" {
		where = fmt.Sprintf("kept with chat %s on host %s", m.ID, t.host)
	} else if t.a.neverSent(m) {
		fate = "never sent: " + m.Harness + " takes no first message; it stays in that file"
	}
	fmt.Fprintf(t.a.stderr, "acpmux-tui: capsule: %s (%s), %s\n", where, capsule.CountMarks(text), fate)
}

// neverSent says whether m's harness takes no first message, so that its
// capsule is never handed over (mux.claimCapsuleArgs).
func (a *app) neverSent(m *sessions.Meta) bool {
	spec, ok := a.table.Get(m.Harness)
	return ok && !spec.TakesInitialPrompt()
}

// capsuleLine says in `show` where a chat's capsule is and whether it has
// been sent.
func (a *app) capsuleLine(m *sessions.Meta) string {
	_, sent, err := a.store.Capsule(m.ID)
	switch {
	case err != nil:
		return "unreadable: " + err.Error()
	case sent:
		return a.store.HandoffSentPath(m.ID) + "  (sent as its first message)"
	}
	if a.neverSent(m) {
		return a.store.HandoffPath(m.ID) + "  (never sent: " + m.Harness + " takes no first message; it stays in this file)"
	}
	return a.store.HandoffPath(m.ID) + "  (sent as its first message at its first start)"
}
