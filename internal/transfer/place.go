package transfer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/internal/lazyre"
)

// This file puts an exact conversation back where its harness finds it:
// Claude Code's session log under the new folder's project folder, Codex's
// rollout file under its sessions folder. The file is written to a temp
// file beside it and linked into place, so a file already there is never
// overwritten and none is ever seen half-written.

// lookupEnv returns the last value of key in an environment list.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// claudeConfigDir is Claude Code's folder in the environment env:
// ${CLAUDE_CONFIG_DIR:-$HOME/.claude}, or "" when neither is set.
func claudeConfigDir(env []string) string {
	if v := lookupEnv(env, "CLAUDE_CONFIG_DIR"); v != "" {
		return v
	}
	if h := lookupEnv(env, "HOME"); h != "" {
		return filepath.Join(h, ".claude")
	}
	return ""
}

// ClaudeProjectName is the name of the folder in which Claude Code keeps
// the sessions run in cwd: every byte that is not an ASCII letter or digit
// becomes "-" (/home/me/src/app is -home-me-src-app).
func ClaudeProjectName(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// claudeTarget is where Claude Code, run in cwd with env, looks for
// session sid's log.
func claudeTarget(env []string, cwd, sid string) (string, error) {
	root := claudeConfigDir(env)
	if root == "" || !filepath.IsAbs(root) {
		return "", errors.New("no Claude Code folder here (neither CLAUDE_CONFIG_DIR nor HOME is set to an absolute path)")
	}
	return filepath.Join(root, "projects", ClaudeProjectName(cwd), sid+".jsonl"), nil
}

// codexSessionID is the shape of a Codex session id (a UUID), which its
// rollout file is named for.
var codexSessionID = lazyre.New(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)

// codexTarget is where a rollout file for Codex session sid goes, dated
// now in local time as Codex dates its own:
// ${CODEX_HOME:-$HOME/.codex}/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<sid>.jsonl.
func codexTarget(env []string, sid string, now time.Time) (string, error) {
	if !codexSessionID().MatchString(sid) {
		return "", fmt.Errorf("session id %s is not a Codex session id", quote(sid))
	}
	root := lookupEnv(env, "CODEX_HOME")
	if root == "" {
		if h := lookupEnv(env, "HOME"); h != "" {
			root = filepath.Join(h, ".codex")
		}
	}
	if root == "" || !filepath.IsAbs(root) {
		return "", errors.New("no Codex folder here (neither CODEX_HOME nor HOME is set to an absolute path)")
	}
	now = now.Local()
	return filepath.Join(root, "sessions", now.Format("2006"), now.Format("01"), now.Format("02"),
		"rollout-"+now.Format("2006-01-02T15-04-05")+"-"+sid+".jsonl"), nil
}

// placeFile copies the staged file from to path, making its folder (0700)
// if need be: a temp file in that folder, synced, then linked to path,
// which fails rather than replace a file already there. It returns what
// removes the placed file again.
func placeFile(from, path string) (func(), error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("put the session log in place: %w", err)
	}
	src, err := openRegular(from)
	if err != nil {
		return nil, fmt.Errorf("put the session log in place: %w", err)
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, ".acpmux-import-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("put the session log in place: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, src)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("put the session log in place: write %s: %w", tmp.Name(), err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("put the session log in place: %s is already there (it is never overwritten)", path)
		}
		return nil, fmt.Errorf("put the session log in place: %w", err)
	}
	if err := syncDir(dir); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("put the session log in place: %w", err)
	}
	return func() { os.Remove(path) }, nil
}
