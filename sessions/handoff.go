package sessions

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// MaxCapsuleBytes bounds a chat's capsule, the first message of a handoff
// (or of a fork whose harness cannot branch a conversation).
const MaxCapsuleBytes = 64 << 10

// HandoffPath returns the path of the chat's capsule while it waits to be
// sent: chats/<id>.handoff.md.
func (s *Store) HandoffPath(id string) string {
	return filepath.Join(s.home, "chats", id+".handoff.md")
}

// HandoffSentPath returns the path the capsule moves to at the moment it is
// handed to the harness: chats/<id>.handoff.sent.md.
func (s *Store) HandoffSentPath(id string) string {
	return filepath.Join(s.home, "chats", id+".handoff.sent.md")
}

// CapsuleError refuses a capsule: too big, or not text.
type CapsuleError struct{ Reason string }

func (e *CapsuleError) Error() string { return "capsule: " + e.Reason }

// CheckCapsule says why text cannot be a capsule, or nil.
func CheckCapsule(text string) error {
	switch {
	case len(text) > MaxCapsuleBytes:
		return &CapsuleError{fmt.Sprintf("%d bytes, at most %d (64 KiB)", len(text), MaxCapsuleBytes)}
	case !utf8.ValidString(text):
		return &CapsuleError{"not valid UTF-8"}
	case strings.IndexByte(text, 0) >= 0:
		return &CapsuleError{"has a NUL byte"}
	}
	return nil
}

// StripBidi removes the bidirectional embedding, override and isolate
// characters (U+202A–U+202E, U+2066–U+2069) from a capsule: they can make
// text read in one order on screen and another to the agent (a "Trojan
// Source" line), and a summary of what was said never needs them.
// It works on the bytes, so text that is not UTF-8 loses nothing else.
// Taking one out can join the bytes on either side into another (E2 80,
// a control, AE): each byte is checked as it joins the kept text, so the
// result has none left, in one pass however deeply they nest.
func StripBidi(text string) string {
	i := bidiAt(text, 0)
	if i < 0 {
		return text
	}
	b := make([]byte, i, len(text))
	copy(b, text[:i])
	for k := i; k < len(text); k++ {
		b = append(b, text[k])
		if n := len(b); n >= 3 && isBidi(b[n-3], b[n-2], b[n-1]) {
			b = b[:n-3]
		}
	}
	return string(b)
}

// isBidi says whether three bytes are a bidirectional control in UTF-8:
// E2 80 AA–AE (U+202A–U+202E) or E2 81 A6–A9 (U+2066–U+2069).
func isBidi(c0, c1, c2 byte) bool {
	return c0 == 0xe2 && (c1 == 0x80 && c2 >= 0xaa && c2 <= 0xae || c1 == 0x81 && c2 >= 0xa6 && c2 <= 0xa9)
}

// bidiAt returns where the first bidirectional control at or after from
// starts in text, or -1.
func bidiAt(text string, from int) int {
	for {
		j := strings.IndexByte(text[from:], 0xe2)
		if j < 0 {
			return -1
		}
		i := from + j
		if i+2 < len(text) && isBidi(text[i], text[i+1], text[i+2]) {
			return i
		}
		from = i + 1
	}
}

// writeCapsule stores a new chat's capsule, less any bidirectional
// control (StripBidi); called with the lock held, before the chat's file
// is written, so no chat is ever seen without the capsule it was made with. A capsule left by a chat that was never
// written (a crash between the two) is replaced. The file is 0600: it
// holds what was said.
func (s *Store) writeCapsule(id, text string) error {
	if err := CheckCapsule(text); err != nil {
		return err
	}
	text = StripBidi(text)
	path := s.HandoffPath(id)
	for _, p := range []string{path, s.HandoffSentPath(id)} {
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			os.Remove(p)
		}
	}
	return writeAtomic(path, []byte(text), 0o600, nil)
}

// readCapsule reads a capsule file without following a symbolic link, and
// only a regular file of at most MaxCapsuleBytes: anything in chats/ may
// have been put there by another program. It returns "" and no error when
// there is none.
func readCapsule(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read capsule %s: %w", path, err)
	}
	if err := notRegular(fi.Mode()); err != nil {
		return "", fmt.Errorf("read capsule %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("read capsule %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxCapsuleBytes+1))
	if err != nil {
		return "", fmt.Errorf("read capsule %s: %w", path, err)
	}
	text := string(data)
	if err := CheckCapsule(text); err != nil {
		return "", fmt.Errorf("read capsule %s: %w (shorten or delete it)", path, err)
	}
	// A capsule edited by hand is sent as edited, less what StripBidi
	// removes.
	return StripBidi(text), nil
}

// Capsule returns the chat's capsule and whether it has been sent; "" when
// the chat has none.
func (s *Store) Capsule(id string) (text string, sent bool, err error) {
	if !ValidID(id) {
		return "", false, fmt.Errorf("capsule of %q: %w", clip(id), ErrNotFound)
	}
	if text, err = readCapsule(s.HandoffPath(id)); err != nil || text != "" {
		return text, false, err
	}
	text, err = readCapsule(s.HandoffSentPath(id))
	return text, text != "", err
}

// ClaimCapsule takes the chat's capsule that waits to be sent, marking it
// sent (the file moves to HandoffSentPath under the lock) before it is
// returned: the caller hands it to the harness at once, and no later start
// sends it again, even after a crash. It returns "" when none waits.
func (s *Store) ClaimCapsule(id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("capsule of %q: %w", clip(id), ErrNotFound)
	}
	unlock, err := s.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	text, err := readCapsule(s.HandoffPath(id))
	if err != nil || text == "" {
		return "", err
	}
	if err := os.Rename(s.HandoffPath(id), s.HandoffSentPath(id)); err != nil {
		return "", fmt.Errorf("mark capsule of %s sent: %w", id, err)
	}
	if err := syncDir(filepath.Join(s.home, "chats")); err != nil {
		return "", fmt.Errorf("mark capsule of %s sent: %w", id, err)
	}
	return text, nil
}

// UnclaimCapsule puts back a capsule ClaimCapsule took when the harness
// never got it (its start failed), so the next start sends it.
func (s *Store) UnclaimCapsule(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("capsule of %q: %w", clip(id), ErrNotFound)
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Lstat(s.HandoffPath(id)); err == nil {
		return nil
	}
	if err := os.Rename(s.HandoffSentPath(id), s.HandoffPath(id)); err != nil {
		return fmt.Errorf("put back capsule of %s: %w", id, err)
	}
	return syncDir(filepath.Join(s.home, "chats"))
}

// DropCapsule removes a capsule that waits to be sent and will not be
// needed (the agent branched the conversation natively after all), and
// clears the chat's capsule mark.
func (s *Store) DropCapsule(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("capsule of %q: %w", clip(id), ErrNotFound)
	}
	if fi, err := os.Lstat(s.HandoffPath(id)); err == nil && !fi.IsDir() {
		if err := os.Remove(s.HandoffPath(id)); err != nil {
			return fmt.Errorf("drop capsule of %s: %w", id, err)
		}
	}
	_, err := s.Update(id, func(m *Meta) error {
		m.Capsule = false
		return nil
	})
	return err
}

// removeCapsules deletes a removed chat's capsule files; called with the
// lock held. Only what acpmux-tui writes is removed: never a folder.
func (s *Store) removeCapsules(id string) {
	for _, p := range []string{s.HandoffPath(id), s.HandoffSentPath(id), s.SetupLogPath(id)} {
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			os.Remove(p)
		}
	}
}
