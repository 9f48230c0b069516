package transfer

import (
	"errors"
	"fmt"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"path/filepath"
	"strings"
)

// This file is the import's guard: what a bundle's chat may see here. Its
// folder, each of its folders and each of its files is canonicalised on
// this host and kept only if it is a root or inside one, component by
// component, after every symlink is resolved. What survives goes through
// the shared validator as any other input does.

// Refusal is an import refused for what the bundle holds or the roots say
// (exit status 2 on the command line, -32602 on the socket). Nothing was
// written.
type Refusal struct {
	// Reason says what was refused and why, naming it.
	Reason string
	// Err is the underlying error, if any (a *bundle.Error).
	Err error
}

// Error returns "import refused: REASON".
func (r *Refusal) Error() string { return "import refused: " + r.Reason }

// Unwrap returns the underlying error.
func (r *Refusal) Unwrap() error { return r.Err }

// AsRefusal reports whether err is (or wraps) a *Refusal.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

func refusef(format string, args ...any) *Refusal {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// Reasons the guard gives for a dropped entry.
const (
	reasonMissing = "does not exist on this host"
	reasonOutside = "is outside every --root"
)

// CanonicalRoots canonicalises the roots of an import: each must be an
// absolute path to a folder that exists here. The first bad one refuses
// the import, by name.
func CanonicalRoots(roots []string) ([]string, error) {
	if len(roots) == 0 {
		return nil, refusef("no --root given: an import keeps only what lies inside the folders you name")
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		c, err := sessions.Canonical(r)
		if err != nil {
			return nil, refusef("--root %s: %v", quote(r), err)
		}
		out = append(out, c)
	}
	return out, nil
}

// within reports whether p is root or lies inside it, component by
// component (/a/bc is not inside /a/b); both are clean absolute paths.
func within(root, p string) bool {
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, root+"/")
}

// insideRoots reports whether p is one of roots or inside one.
func insideRoots(roots []string, p string) bool {
	for _, r := range roots {
		if within(r, p) {
			return true
		}
	}
	return false
}

// guardPath canonicalises p, a folder (file false) or a single file, as
// this host has it, and says why it may not be kept, or "" with its
// canonical form.
func guardPath(roots []string, p string, file bool) (string, string) {
	if reason := sessions.PathSyntaxProblem(p); reason != "" {
		return "", reason
	}
	canon := sessions.Canonical
	if file {
		canon = sessions.CanonicalFile
	}
	c, err := canon(p)
	if err != nil {
		if msg := err.Error(); strings.HasPrefix(msg, "does not exist") {
			return "", reasonMissing
		} else if msg == "not a directory" {
			return "", "is not a folder on this host"
		} else {
			return "", msg
		}
	}
	if !insideRoots(roots, c) {
		if c != filepath.Clean(p) {
			return "", fmt.Sprintf("%s (it resolves to %s)", reasonOutside, quote(c))
		}
		return "", reasonOutside
	}
	return c, ""
}

// guardList keeps the entries of a chat's list (folders, or with file its
// single files) that lie inside the roots, canonical, and drops the others
// with the reason; then each kept one must pass the shared validator for
// the chat's folder cwd (the agent home, the chat's own folder...), and the
// ones it refuses are dropped with its reason.
func guardList(store *sessions.Store, roots []string, cwd string, list []string, file bool) ([]string, []proto.Dropped) {
	kept := []string{}
	dropped := []proto.Dropped{}
	for _, p := range list {
		c, why := guardPath(roots, p, file)
		if why == "" {
			why = validatorReason(store, cwd, c, file)
		}
		if why != "" {
			dropped = append(dropped, proto.Dropped{Path: p, Reason: why})
			continue
		}
		kept = append(kept, c)
	}
	return kept, dropped
}

// validatorReason is why the shared validator refuses the one entry c for
// a chat in cwd, or "".
func validatorReason(store *sessions.Store, cwd, c string, file bool) string {
	var err error
	if file {
		_, err = store.ValidateFiles(cwd, []string{c})
	} else {
		_, err = store.ValidateFolders(cwd, []string{c})
	}
	if err == nil {
		return ""
	}
	if fe, ok := sessions.AsFolderError(err); ok && len(fe.Problems) > 0 {
		return fe.Problems[0].Reason
	}
	return err.Error()
}

// guardCwd is the chat's own folder here: canonical, inside a root, not
// in the agent home; else the import is refused, naming it.
func guardCwd(store *sessions.Store, roots []string, cwd string) (string, error) {
	c, why := guardPath(roots, cwd, false)
	if why != "" {
		return "", refusef("the chat's folder %s %s (a chat with a project keeps it; give a --root that holds it)", quote(cwd), why)
	}
	home := store.Home()
	if c == home || within(home, c) {
		return "", refusef("the chat's folder %s is inside the agent home", quote(cwd))
	}
	return c, nil
}

// quote quotes a path from a bundle for a message, escaping controls and
// cutting a long one.
func quote(s string) string {
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return fmt.Sprintf("%+q", s)
}
