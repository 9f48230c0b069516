package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	sdk "github.com/coder/acp-go-sdk"
)

// acpDeepDepth is how deep the hostile requests nest their params: with
// the request object around them, one level past what encoding/json reads.
const acpDeepDepth = 10_000

// acpDeepWait bounds the wait for the answer to a deep request: a parse
// error is answered at once, so this is only a hang's deadline.
const acpDeepWait = 30 * time.Second

// rawDoor is `acpmux-tui acp` with its stdio as raw lines.
type rawDoor struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan string
}

// openRawDoor starts `acpmux-tui acp args...` and reads its stdout as lines.
func (c *cli) openRawDoor(t *testing.T, args ...string) *rawDoor {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"acp"}, args...)...)
	cmd.Env, cmd.Dir = c.env(), c.root
	var stderr lockedbuf.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &rawDoor{t: t, stdin: stdin, lines: make(chan string, 16)}
	exited := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
	}()
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(doorHang):
			cmd.Process.Kill()
			t.Errorf("acpmux-tui acp did not end when its stdin closed; stderr: %s", stderr.String())
		}
	})
	return d
}

func (d *rawDoor) send(line string) {
	d.t.Helper()
	if _, err := io.WriteString(d.stdin, line+"\n"); err != nil {
		d.t.Fatalf("write to acpmux-tui acp: %v", err)
	}
}

// answer reads the next line, an answer, within acpDeepWait.
func (d *rawDoor) answer(what string) (id string, code int, message string) {
	d.t.Helper()
	select {
	case line, ok := <-d.lines:
		if !ok {
			d.t.Fatalf("%s: acpmux-tui acp closed its stdout instead of answering", what)
		}
		var rep struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &rep); err != nil {
			d.t.Fatalf("%s: the door wrote a line that is not JSON: %v\n%.300s", what, err, line)
		}
		if rep.Error != nil {
			return string(rep.ID), rep.Error.Code, rep.Error.Message
		}
		return string(rep.ID), 0, ""
	case <-time.After(acpDeepWait):
		d.t.Fatalf("%s: acpmux-tui acp did not answer within %v", what, acpDeepWait)
	}
	return "", 0, ""
}

// TestACPDoorAnswersADeeplyNestedRequest: a request nested 10,000 levels
// deep, sent to `acpmux-tui acp` on its stdin, is answered on its stdout
// with a parse error that carries the request's id, before initialize and
// after it, in arrays and in objects; the door then serves the next
// request.
func TestACPDoorAnswersADeeplyNestedRequest(t *testing.T) {
	c := doorCLI(t)
	d := c.openRawDoor(t, "--harness", "fake")
	deep := func(id, method, open, close string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` +
			strings.Repeat(open, acpDeepDepth) + strings.Repeat(close, acpDeepDepth) + `}`
	}
	want := func(what, gotID string, code int, message, wantID string) {
		t.Helper()
		if code != -32700 || !strings.Contains(message, "nested too deeply") || gotID != wantID {
			t.Fatalf("%s: answered id %s, %d %q; want id %s, -32700 saying it is nested too deeply", what, gotID, code, message, wantID)
		}
	}
	d.send(deep("1", "initialize", "[", "]"))
	id, code, msg := d.answer("a deep initialize")
	want("a deep initialize (arrays)", id, code, msg, "1")
	d.send(deep(`"two"`, "initialize", `{"a":`, "}"))
	id, code, msg = d.answer("a deep initialize")
	want("a deep initialize (objects)", id, code, msg, `"two"`)

	d.send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1}}`)
	if id, code, msg := d.answer("initialize"); id != "3" || code != 0 {
		t.Fatalf("initialize after the deep ones: id %s, error %d %q", id, code, msg)
	}
	d.send(deep("4", "session/list", `{"a":`, "}"))
	id, code, msg = d.answer("a deep session/list")
	want("a deep session/list", id, code, msg, "4")
	d.send(`{"jsonrpc":"2.0","id":5,"method":"session/list","params":{}}`)
	if id, code, msg := d.answer("session/list"); id != "5" || code != 0 {
		t.Fatalf("session/list after the deep one: id %s, error %d %q", id, code, msg)
	}
}

// TestACPDoorAnswersTheSDKADeepRequest: a client on the ACP SDK whose
// initialize carries a _meta as deep as the SDK sends (its line one level
// past what the door reads) gets an error for it on stdio, not a wait (the
// SDK drops an answer with a null id), and initializes next.
func TestACPDoorAnswersTheSDKADeepRequest(t *testing.T) {
	c := doorCLI(t)
	d := c.openDoor(t, nil, "--harness", "fake") // the deep request breaks the schema's reader too
	var meta any = "bottom"
	for range acpDeepDepth - 2 { // params, _meta, and these: 10,000 levels
		meta = map[string]any{"a": meta}
	}
	ctx, cancel := context.WithTimeout(context.Background(), acpDeepWait)
	defer cancel()
	_, err := d.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, Meta: map[string]any{"deep": meta}})
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("acpmux-tui acp did not answer an initialize nested %d levels deep within %v; stderr: %s", acpDeepDepth, acpDeepWait, d.stderr.String())
	}
	if code, _, ok := doorclient.AsRefusal(err); !ok || code != -32700 {
		t.Fatalf("a deep initialize: %v, want a -32700 error", err)
	}
	d.initialize(t)
	if _, err := d.ListSessions(doorCtx(t), sdk.ListSessionsRequest{}); err != nil {
		t.Fatalf("session/list after the deep initialize: %v", err)
	}
}
