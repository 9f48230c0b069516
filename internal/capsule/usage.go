package capsule

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file reads a terminal chat's usage from its harness's session log,
// where the log has one: the tokens in the context after the last turn,
// and the window's size. Neither Claude Code's log nor Codex's records a
// cost, so none is read.

// usageTailBytes is how much of a log's end is read for its usage: the
// last turn's records, whatever the size of the log.
const usageTailBytes = 1 << 20

// claudeWindow is Claude Code's context window unless a session shows a
// larger one in use (the 1M-token window some models offer): its log
// names the model but not the window.
const (
	claudeWindow      = 200_000
	claudeLargeWindow = 1_000_000
)

// claudeUsageRecord is what the usage needs of a Claude Code log line.
type claudeUsageRecord struct {
	Type        string `json:"type"`
	IsSidechain bool   `json:"isSidechain"`
	Message     struct {
		Usage *struct {
			Input         int64 `json:"input_tokens"`
			CacheCreation int64 `json:"cache_creation_input_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
			Output        int64 `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// ClaudeUsage is the context of the Claude Code session whose log is at
// path, as its last assistant message (not a subagent's) counts it: the
// input, cached and output tokens of that call, in a window of 200,000
// tokens (1,000,000 when more are in use). nil when the log has none.
func ClaudeUsage(path string) (*proto.Usage, error) {
	var used int64
	found := false
	err := logTail(path, func(line []byte) {
		var r claudeUsageRecord
		if json.Unmarshal(line, &r) != nil || r.Type != "assistant" || r.IsSidechain || r.Message.Usage == nil {
			return
		}
		u := r.Message.Usage
		used, found = 0, true
		for _, n := range []int64{u.Input, u.CacheCreation, u.CacheRead, u.Output} {
			if n < 0 || n > proto.MaxContextTokens {
				used = -1 // refused below, whatever the others: no sum wraps
				break
			}
			used += n
		}
	})
	if err != nil || !found {
		return nil, err
	}
	size := int64(claudeWindow)
	if used > size {
		size = claudeLargeWindow
	}
	return checked(&proto.Usage{Used: used, Size: size})
}

// codexUsageRecord is what the usage needs of a Codex rollout line: its
// token_count events.
type codexUsageRecord struct {
	Type    string `json:"type"`
	Payload struct {
		Type string `json:"type"`
		Info *struct {
			Last struct {
				Total int64 `json:"total_tokens"`
			} `json:"last_token_usage"`
			Window int64 `json:"model_context_window"`
		} `json:"info"`
	} `json:"payload"`
}

// CodexUsage is the context of the Codex session whose rollout file is at
// path, as its last token_count event says it: the tokens of the last
// call and the model's context window. nil when the log has none.
func CodexUsage(path string) (*proto.Usage, error) {
	var found *proto.Usage
	err := logTail(path, func(line []byte) {
		var r codexUsageRecord
		if json.Unmarshal(line, &r) != nil || r.Type != "event_msg" || r.Payload.Type != "token_count" || r.Payload.Info == nil {
			return
		}
		found = &proto.Usage{Used: r.Payload.Info.Last.Total, Size: r.Payload.Info.Window}
	})
	if err != nil || found == nil {
		return nil, err
	}
	return checked(found)
}

// checked is u held to the bounds of any usage that enters.
func checked(u *proto.Usage) (*proto.Usage, error) {
	if err := u.Check(); err != nil {
		return nil, err
	}
	return u, nil
}

// logTail calls line for each whole line of the last usageTailBytes of
// the log at path, opened as readLog opens one.
func logTail(path string, line func([]byte)) error {
	f, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	skipFirst := false
	if fi.Size() > usageTailBytes {
		if _, err := f.Seek(fi.Size()-usageTailBytes, io.SeekStart); err != nil {
			return err
		}
		skipFirst = true // the window starts inside a line
	}
	err = eachLine(io.LimitReader(f, usageTailBytes), skipFirst, line)
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
