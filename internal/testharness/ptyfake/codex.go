package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// storeCodexSession does what Codex does with its sessions when
// $ACPMUX_FAKE_CODEX is set: a start without a subcommand, or
// `fork PARENT`, begins a new session under an id of its own choosing and
// writes its rollout file, ${CODEX_HOME:-$HOME/.codex}/sessions/YYYY/MM/DD/
// rollout-YYYY-MM-DDThh-mm-ss-ID.jsonl (local time), whose first line is
// the session meta record (id, start time, cwd, and the session forked
// from). `resume ID` appends to that session's file, and, as Codex does,
// fails when there is none; so does `fork` of an unknown session. (Codex
// writes the file at the first message; the fake at once, before its
// prompt.) It prints "codex session ID" on the screen.
func storeCodexSession() {
	if os.Getenv("ACPMUX_FAKE_CODEX") == "" {
		return
	}
	root := os.Getenv("CODEX_HOME")
	if root == "" {
		root = filepath.Join(os.Getenv("HOME"), ".codex")
	}
	root = filepath.Join(root, "sessions")
	sub, arg := "", ""
	if len(os.Args) > 2 && (os.Args[1] == "resume" || os.Args[1] == "fork") {
		sub, arg = os.Args[1], os.Args[2]
	}
	if sub != "" {
		path := findRollout(root, arg)
		if path == "" {
			fmt.Fprintf(os.Stderr, "No saved session found with ID %s\r\n", arg)
			os.Exit(1)
		}
		if sub == "resume" {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				fail(err)
			}
			fmt.Fprintf(f, `{"timestamp":%q,"type":"event_msg","payload":{"type":"resumed"}}`+"\n", codexTime(time.Now()))
			f.Close()
			fmt.Printf("codex session %s\r\n", arg)
			return
		}
	}
	id := newUUID()
	now := time.Now()
	cwd, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	payload := map[string]any{"id": id, "timestamp": codexTime(now), "cwd": cwd,
		"originator": "codex_cli_rs", "cli_version": "0.0.0-fake", "source": "cli"}
	if sub == "fork" {
		payload["forked_from_id"] = arg
	}
	line, err := json.Marshal(map[string]any{"timestamp": codexTime(now), "type": "session_meta", "payload": payload})
	if err != nil {
		fail(err)
	}
	dir := filepath.Join(root, now.Format("2006"), now.Format("01"), now.Format("02"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	name := "rollout-" + now.Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
	if err := os.WriteFile(filepath.Join(dir, name), append(line, '\n'), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("codex session %s\r\n", id)
}

// codexTime is how Codex writes a time: UTC, to the millisecond, cut.
func codexTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// findRollout returns the rollout file of session id under root, or "".
func findRollout(root, id string) string {
	var found string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), "-"+id+".jsonl") {
			found = path
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		fail(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// storeGeminiSession does what Gemini CLI does with --session-id X when
// $GEMINI_CLI_HOME is set: it keeps the conversation in
// $GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-<time>-<first 8 of
// X>.jsonl, a metadata record then the messages, which a later --resume X
// needs. (Gemini CLI writes it at the first message; the fake at once.)
func storeGeminiSession() {
	home := os.Getenv("GEMINI_CLI_HOME")
	i := slices.Index(os.Args, "--session-id")
	if home == "" || i < 0 || i+1 >= len(os.Args) {
		return
	}
	id := os.Args[i+1]
	cwd, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	dir := filepath.Join(home, ".gemini", "tmp", filepath.Base(cwd), "chats")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	now := time.Now()
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	body := fmt.Sprintf(`{"sessionId":%q,"projectHash":"fake","startTime":%q}`+"\n"+`{"id":"m1","type":"user","content":"hello"}`+"\n", id, now.UTC().Format(time.RFC3339))
	name := "session-" + now.Format("2006-01-02T15-04") + "-" + short + ".jsonl"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		fail(err)
	}
}
