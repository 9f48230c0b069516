package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/coder/acp-go-sdk"
)

// maxFlood bounds the flood-fs command's count.
const maxFlood = 1_000_000

func init() {
	// read-lines PATH LINE LIMIT: fs/read_text_file with a line/limit
	// window; "-" leaves either out. Replies as read does.
	attacks["read-lines"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		f := strings.Fields(arg)
		if len(f) != 3 {
			return "", fmt.Errorf("read-lines: want PATH LINE LIMIT, got %q", arg)
		}
		req := acp.ReadTextFileRequest{SessionId: acp.SessionId(t.sid), Path: f[0]}
		var err error
		if req.Line, err = optionalInt(f[1]); err != nil {
			return "", fmt.Errorf("read-lines: line: %w", err)
		}
		if req.Limit, err = optionalInt(f[2]); err != nil {
			return "", fmt.Errorf("read-lines: limit: %w", err)
		}
		resp, err := t.a.conn.ReadTextFile(t.ctx, req)
		if err != nil {
			return t.stopReason(), t.say("read error: " + errorText(err))
		}
		return t.stopReason(), t.say("read: " + resp.Content)
	}

	// flood-fs N PATH...: N fs/read_text_file requests at once, cycling
	// through the paths, none waiting for another; the reply counts the
	// answers: "flood-fs: answered=N ok=K" then "; C× TEXT" per distinct
	// refusal (its data's error text).
	attacks["flood-fs"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		f := strings.Fields(arg)
		if len(f) < 2 {
			return "", fmt.Errorf("flood-fs: want N PATH..., got %q", arg)
		}
		n, err := strconv.Atoi(f[0])
		if err != nil || n < 1 || n > maxFlood {
			return "", fmt.Errorf("flood-fs: want a count from 1 to %d, got %q", maxFlood, f[0])
		}
		paths := f[1:]
		var tally fsTally
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, err := t.a.conn.ReadTextFile(t.ctx, acp.ReadTextFileRequest{SessionId: acp.SessionId(t.sid), Path: paths[i%len(paths)]})
				tally.add(err)
			})
		}
		wg.Wait()
		logf("acpfake: flood-fs of %d requests answered", n)
		return t.stopReason(), t.say("flood-fs: " + tally.String())
	}
}

func optionalInt(s string) (*int, error) {
	if s == "-" {
		return nil, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// fsTally counts answers to file requests: successes, and refusals by the
// error text in their data (or their message when there is none).
type fsTally struct {
	mu       sync.Mutex
	answered int
	ok       int
	refusals map[string]int
}

func (c *fsTally) add(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answered++
	if err == nil {
		c.ok++
		return
	}
	if c.refusals == nil {
		c.refusals = map[string]int{}
	}
	c.refusals[refusalText(err)]++
}

func (c *fsTally) refused() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.answered - c.ok
}

// String is "answered=N ok=K; C× TEXT; …", refusals sorted by text.
func (c *fsTally) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "answered=%d ok=%d", c.answered, c.ok)
	for _, text := range slices.Sorted(maps.Keys(c.refusals)) {
		fmt.Fprintf(&b, "; %d× %s", c.refusals[text], text)
	}
	return b.String()
}

// refusalText is the "error" field of a client error's data, else its
// message.
func refusalText(err error) string {
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return err.Error()
	}
	raw, _ := json.Marshal(re.Data)
	var data struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(raw, &data) == nil && data.Error != "" {
		return data.Error
	}
	return re.Message
}
