package sessions

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

// MaxTitleRunes bounds an agent's title for its session (Meta.Title), in
// characters: a title is one line shown in lists.
const MaxTitleRunes = 256

// AgentTitle returns title, as an agent sent it, fit to keep and show: its
// escape sequences and control characters taken out (plaintext.Line), its
// bidirectional controls too (they would turn the line around), blanks
// trimmed, and cut to MaxTitleRunes characters (marked "…").
func AgentTitle(title string) string {
	title = plaintext.Line(title)
	title = strings.Map(func(r rune) rune {
		if plaintext.IsBidi(r) || unicode.IsControl(r) {
			return -1
		}
		return r
	}, title)
	title = strings.TrimSpace(title)
	if utf8.RuneCountInString(title) <= MaxTitleRunes {
		return title
	}
	n := 0
	for i := range title {
		if n == MaxTitleRunes-1 {
			return strings.TrimSpace(title[:i]) + "…"
		}
		n++
	}
	return title
}

// titleProblem says what makes a stored title one AgentTitle would not
// have made (a chat file edited by hand), or "" for none.
func titleProblem(title string) string {
	if n := utf8.RuneCountInString(title); n > MaxTitleRunes {
		return fmt.Sprintf("title is %d characters, at most %d", n, MaxTitleRunes)
	}
	for _, r := range title {
		if unicode.IsControl(r) {
			return fmt.Sprintf("title %q has a control character (%U): a title is one line of printable text", clip(title), r)
		}
		if plaintext.IsBidi(r) {
			return fmt.Sprintf("title %q has a bidirectional formatting character (%U %s)", clip(title), r, bidiName(r))
		}
	}
	return ""
}

// Label is the chat as lists name it: the user's name, or, where the chat
// still has the name Create gave it (its folder's or harness's name and its
// id) and its agent gave it a title, that title.
func (m *Meta) Label() string {
	if m.Title != "" && m.DefaultNamed() {
		return m.Title
	}
	return m.Name
}

// DefaultNamed reports whether the chat has no name of the user's: none,
// or the one Create gave it (defaultName).
func (m *Meta) DefaultNamed() bool {
	return m.Name == "" || m.Name == m.Harness+" "+m.ID || m.Name == filepath.Base(m.Cwd)+" "+m.ID
}

// errSameTitle stops SetTitle's Update when the title is the stored one.
var errSameTitle = errors.New("the same title")

// SetTitle stores title, as the chat's agent sent it (AgentTitle cleans
// it), as the chat's Title under the store's lock, writing the file only
// when it changes. It reports whether it did.
func (s *Store) SetTitle(id, title string) (bool, error) {
	title = AgentTitle(title)
	_, err := s.Update(id, func(m *Meta) error {
		if m.Title == title {
			return errSameTitle
		}
		m.Title = title
		return nil
	})
	if errors.Is(err, errSameTitle) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store title of chat %s: %w", id, err)
	}
	return true, nil
}
