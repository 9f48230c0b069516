package sessions

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file holds what a chat's name must be: the check every name given
// from outside goes through, the names of chats derived from another, and
// renaming.

// NameError is a refused chat name: empty, too long, not one line of
// printable text, or (for a rename) another chat's name. Like a folder
// refusal it is outside input refused: JSON-RPC code -32602, exit status 2.
type NameError struct {
	// Name is the name as given.
	Name string
	// Reason says why it was refused.
	Reason string
}

// Error names the refused name (clipped) and the reason.
func (e *NameError) Error() string { return e.Reason }

// Code returns the JSON-RPC error code of the refusal, -32602.
func (e *NameError) Code() int { return proto.CodeInvalidParams }

// AsNameError reports whether err is (or wraps) a refused name.
func AsNameError(err error) (*NameError, bool) {
	var ne *NameError
	ok := errors.As(err, &ne)
	return ne, ok
}

// CheckName refuses a name a chat cannot have: empty (or only spaces),
// over MaxNameBytes, not valid UTF-8, or holding a control character (a
// name is one line of printable text) or a bidirectional formatting
// character (one that reorders the text shown after it). It returns a
// *NameError or nil.
func CheckName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return &NameError{name, "a chat's name cannot be empty"}
	case !utf8.ValidString(name):
		return &NameError{name, fmt.Sprintf("name %q is not valid UTF-8", clip(name))}
	}
	if reason := nameProblem(name); reason != "" {
		return &NameError{name, reason}
	}
	return nil
}

// nameProblem returns why name cannot be a chat's name, or "": too long,
// or holding a control character or a bidirectional formatting character
// (bidiName). Both CheckName and the check of a stored chat (Meta.check)
// apply it, so a name refused from outside is a broken file when found on
// disk, as a name with a newline is.
func nameProblem(name string) string {
	if len(name) > MaxNameBytes {
		return fmt.Sprintf("name is %d bytes, at most %d", len(name), MaxNameBytes)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Sprintf("name %q has a control character (%U): a name is one line of printable text", clip(name), r)
		}
		if plaintext.IsBidi(r) {
			return fmt.Sprintf("name %q has a bidirectional formatting character (%U %s): it would reorder how the name and the text after it are shown", clip(name), r, bidiName(r))
		}
	}
	return ""
}

// bidiName is the Unicode name of r, a bidirectional formatting character
// (plaintext.IsBidi: the marks, embeddings, overrides and isolates of
// UAX #9). Shown in a list, an override turns what follows it around: "invoice
// \u202Egpj.exe" reads "invoice exe.jpg".
func bidiName(r rune) string {
	switch r {
	case '\u061c':
		return "ARABIC LETTER MARK"
	case '\u200e':
		return "LEFT-TO-RIGHT MARK"
	case '\u200f':
		return "RIGHT-TO-LEFT MARK"
	case '\u202a':
		return "LEFT-TO-RIGHT EMBEDDING"
	case '\u202b':
		return "RIGHT-TO-LEFT EMBEDDING"
	case '\u202c':
		return "POP DIRECTIONAL FORMATTING"
	case '\u202d':
		return "LEFT-TO-RIGHT OVERRIDE"
	case '\u202e':
		return "RIGHT-TO-LEFT OVERRIDE"
	case '\u2066':
		return "LEFT-TO-RIGHT ISOLATE"
	case '\u2067':
		return "RIGHT-TO-LEFT ISOLATE"
	case '\u2068':
		return "FIRST STRONG ISOLATE"
	case '\u2069':
		return "POP DIRECTIONAL ISOLATE"
	}
	return "BIDIRECTIONAL CONTROL"
}

// derivedSuffix is what follows the parent's name in the name of a chat
// derived from it: " · fork", " · side", " · import", and for a handoff an
// arrow to the new harness (" → codex"); n > 1 numbers a name already
// taken (" · fork 2", " → codex 2").
func derivedSuffix(origin, harnessName string, n int) string {
	s := " · " + origin
	if origin == OriginHandoff && harnessName != "" {
		s = " → " + harnessName
	}
	if n > 1 {
		s += fmt.Sprintf(" %d", n)
	}
	return s
}

// DerivedName is the name of a new chat made from parent (a fork, side
// chat, handoff to harnessName, or import): "zap · fork", "zap · side",
// "zap → codex", numbered from 2 when another chat already has that name
// ("zap · fork 2"), so each stays a name of its own to type. A long parent
// name is cut so the whole stays a valid name (FitName keeps the number).
func (s *Store) DerivedName(parent *Meta, origin, harnessName string) (string, error) {
	list, err := s.List()
	if err != nil {
		return "", err
	}
	taken := make(map[string]bool, len(list))
	for _, e := range list {
		if e.Meta != nil {
			taken[e.Meta.Name] = true
		}
	}
	name := FitName(parent.Name, derivedSuffix(origin, harnessName, 1))
	for n := 2; taken[name]; n++ {
		name = FitName(parent.Name, derivedSuffix(origin, harnessName, n))
	}
	return name, nil
}

// Rename gives chat id a new name, written atomically under the store lock
// like every other change. The name goes through CheckName, and one that
// another chat has is refused too (an ID argument could no longer tell the
// two apart by name); both refusals are a *NameError and change nothing.
// Renaming a chat to the name it has is no change and succeeds.
func (s *Store) Rename(id, name string) (*Meta, error) {
	if err := CheckName(name); err != nil {
		return nil, fmt.Errorf("rename chat %s: %w", id, err)
	}
	list, err := s.List()
	if err != nil {
		return nil, err
	}
	for _, e := range list {
		if e.Meta != nil && e.ID != id && e.Meta.Name == name {
			return nil, fmt.Errorf("rename chat %s: %w", id, &NameError{name, fmt.Sprintf("chat %s is already named %q", e.ID, clip(name))})
		}
	}
	return s.Update(id, func(m *Meta) error {
		m.Name = name
		return nil
	})
}
