package web

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// tokenBytes is the token's length before hex: 256 bits, beyond guessing.
const tokenBytes = 32

// tokenState says why Open made a new token, for its log line.
type tokenState string

const (
	tokenReused  tokenState = "reused"
	tokenMissing tokenState = "there was none"
	tokenBad     tokenState = "the file was not a private regular file of this user holding a token"
	tokenAsked   tokenState = "a new one was asked for"
)

// loadToken returns the token of path when it is one to trust, else makes
// a new one and stores it there. Reusing it lets a page's cookie outlive a
// server restart. No error names the token: only the path.
func loadToken(path string, fresh bool) (string, tokenState, error) {
	state := tokenAsked
	if !fresh {
		tok, st := readToken(path)
		if st == tokenReused {
			return tok, st, nil
		}
		state = st
	}
	b := make([]byte, tokenBytes)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	tok := hex.EncodeToString(b)
	if err := writeToken(path, tok); err != nil {
		return "", state, err
	}
	return tok, state, nil
}

// readToken reads path's token when path is a regular file (not a link to
// one: O_NOFOLLOW), of this user, mode exactly 0600, holding exactly 64
// lowercase hex digits and at most a newline. The checks are made on the
// open file (fstat), so the file cannot be swapped between check and read;
// O_NONBLOCK keeps a FIFO planted there from blocking the open.
func readToken(path string) (string, tokenState) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if os.IsNotExist(err) {
		return "", tokenMissing
	}
	if err != nil {
		return "", tokenBad
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Mode() != 0o600 {
		return "", tokenBad
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return "", tokenBad
	}
	b, err := io.ReadAll(io.LimitReader(f, 2*tokenBytes+2))
	if err != nil {
		return "", tokenBad
	}
	tok := strings.TrimSuffix(string(b), "\n")
	if !isToken(tok) {
		return "", tokenBad
	}
	return tok, tokenReused
}

// isToken reports whether s is 64 lowercase hex digits.
func isToken(s string) bool {
	if len(s) != 2*tokenBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// writeToken stores tok in path atomically: a temporary file in the same
// folder, mode 0600, synced, renamed over path (which replaces a link
// there, never its target), and the folder synced.
func writeToken(path, tok string) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("web: make the token file's folder %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("web: write the token file %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("web: write the token file %s: %w", path, err)
	}
	if _, err := tmp.WriteString(tok + "\n"); err != nil {
		return fmt.Errorf("web: write the token file %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("web: sync the token file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("web: write the token file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("web: put the token file in place at %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
