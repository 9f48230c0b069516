package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is prompt, which runs one ACP turn of a chat from this
// terminal through the server and streams it as plain text.

// prompt runs one ACP turn from the command line, as a client of the agent
// home's server (started in the background when none answers): the reply
// streams to stdout as plain text, permission requests are refused (each
// is printed on stderr), the agent's stderr lines show on stderr as they
// come ("agent: "), a turn quiet for proto.NoReplyAfter says so on stderr,
// and ctrl+c cancels the turn. Whatever the agent wrote is cleaned of
// control sequences first. The chat keeps running in the server after
// prompt exits, so the next prompt finds its agent ready.
//
// The chat's harness is checked against the table the server has in
// effect (serverconfig.go), read again just then: a harness added to the
// config a moment ago is known, and a file refused since leaves the
// server's last good config, said on stderr.
func (a *app) prompt(ref, text string, links []proto.Link) error {
	e, conn, err := a.acpChatConn(ref, "; use attach")
	if err != nil {
		return err
	}
	defer conn.Close()
	return a.promptOn(conn, e.ID, text, links)
}

// promptLinks are the files of prompt's --link as the links the prompt
// sends: each made absolute against the working directory and, on this
// machine, a file that exists (else a refusal, exit 2); another host's are
// its own paths, which must be absolute, and its server checks them. The
// server checks every link's form again where it enters.
func (a *app) promptLinks(files []string, onHost bool) ([]proto.Link, error) {
	links := make([]proto.Link, 0, len(files))
	for _, f := range files {
		if onHost {
			if !filepath.IsAbs(f) {
				return nil, usagef("--link %s: a path of another host must be absolute", f)
			}
		} else {
			abs, err := filepath.Abs(f)
			if err != nil {
				return nil, usagef("--link %s: %v", f, err)
			}
			st, err := os.Stat(abs)
			if err != nil {
				return nil, usagef("--link %s: %v", f, err)
			}
			if !st.Mode().IsRegular() {
				return nil, usagef("--link %s: not a file", f)
			}
			f = abs
		}
		links = append(links, proto.Link{URI: (&url.URL{Scheme: "file", Path: filepath.Clean(f)}).String(), Name: filepath.Base(f)})
	}
	return links, nil
}

// acpChatConn resolves ref to a chat of this machine whose harness speaks
// ACP (a terminal chat is refused, notACP ending the words) and connects
// to the agent home's server, starting one when none runs: the chat's
// agent runs there. The caller closes conn.
func (a *app) acpChatConn(ref, notACP string) (sessions.Entry, *client.Conn, error) {
	if err := a.openServerClient(); err != nil {
		return sessions.Entry{}, nil, err
	}
	e, err := a.store.Resolve(ref)
	if err != nil {
		return e, nil, err
	}
	if e.Broken != nil {
		return e, nil, e.Broken
	}
	conn, cfg, err := a.harnessesNow()
	if err != nil {
		return e, nil, err
	}
	if h, ok := cfg.Harness(e.Meta.Harness); !ok || h.Transport != harness.TransportACP {
		if conn != nil {
			conn.Close()
		}
		return e, nil, usagef("chat %s runs %s, which does not speak ACP%s", e.ID, e.Meta.Harness, notACP)
	}
	if conn == nil {
		exe, err := os.Executable()
		if err != nil {
			return e, nil, fmt.Errorf("find acpmux-tui's own binary to start the server: %w", err)
		}
		if conn, err = client.EnsureServer(a.store.Home(), exe); err != nil {
			return e, nil, err
		}
	}
	return e, conn, nil
}

// promptOn runs the turn of prompt on a connection to the chat's server.
func (a *app) promptOn(conn *client.Conn, id, text string, links []proto.Link) error {
	e := sessions.Entry{ID: id}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := newPromptOutput(a.stdout, a.stderr)
	// The agent's stderr shows from its start (an agent that cannot start
	// says why there) to its end; its reply only once this turn starts: a
	// loaded session replays the conversation first.
	feed, err := conn.ObserveChat(ctx, e.ID, out.observed)
	if err != nil {
		return cleanError{err}
	}
	defer feed.Close()
	if err := conn.ChatReady(ctx, e.ID); err != nil {
		feed.Sync()
		if ctx.Err() != nil {
			return ctx.Err() // interrupted; the agent goes on starting in the server
		}
		return cleanError{err}
	}
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		select {
		case <-ctx.Done():
			_ = conn.CancelTurn(context.Background(), e.ID)
		case <-ended:
		}
	}()
	// The turn runs in the server: ctrl+c cancels it there, and this waits
	// for its end.
	reason, err := conn.RunTurn(context.Background(), e.ID, text, true, links...)
	feed.Sync()
	out.endTurn()
	if err != nil {
		return cleanError{err}
	}
	if reason != "end_turn" {
		out.note("turn ended: " + reason)
	}
	if n := out.missedCount(); n > 0 {
		return fmt.Errorf("the reply above is incomplete: %d updates of the agent were dropped because this terminal could not keep up", n)
	}
	return nil
}

// promptOutput is what `prompt` prints of the chat's stream, as the
// server sends it: the reply on stdout, the rest on stderr, everything
// cleaned of control sequences.
type promptOutput struct {
	stdout, stderr io.Writer

	mu       sync.Mutex
	replying bool // this prompt's turn runs: agent text is its reply
	openLine bool // stdout's last line has no newline yet
	missed   int  // updates the server dropped for this client
}

func newPromptOutput(stdout, stderr io.Writer) *promptOutput {
	return &promptOutput{stdout: stdout, stderr: stderr}
}

// observed prints one entry of the chat's stream: each line the agent
// writes on stderr; and while this prompt's turn runs, the agent's reply
// text, each permission refused, and the server's notices ("no reply
// yet"). A gap the server left in the stream is said where it is.
func (o *promptOutput) observed(e proto.ObservedEntry) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch e.Kind {
	case proto.EntryStderr:
		fmt.Fprintf(o.stderr, "agent: %s\n", plaintext.Clean(e.Text))
	case proto.EntryTurnStarted:
		o.replying = e.Own
	case proto.EntryTurnEnded:
		o.replying = false
	case proto.EntryMissed:
		o.missed += e.Count
		o.noteLocked(fmt.Sprintf("%d updates of the agent were dropped here: this terminal could not keep up", e.Count))
	case proto.EntryRefused:
		if o.replying {
			fmt.Fprintf(o.stderr, "acpmux-tui: refused permission for %s\n", plaintext.Line(e.Title))
		}
	case proto.EntryNotice:
		if o.replying {
			o.noteLocked(e.Text)
		}
	case proto.EntryAgent:
		if text := plaintext.Clean(e.Text); o.replying && text != "" {
			io.WriteString(o.stdout, text)
			o.openLine = !strings.HasSuffix(text, "\n")
		}
	}
}

// note prints a line of acpmux-tui's own on stderr.
func (o *promptOutput) note(text string) {
	o.mu.Lock()
	o.noteLocked(text)
	o.mu.Unlock()
}

func (o *promptOutput) noteLocked(text string) {
	fmt.Fprintf(o.stderr, "acpmux-tui: %s\n", plaintext.Line(text))
}

// endTurn ends the reply with a newline when it has none.
func (o *promptOutput) endTurn() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.replying = false
	if o.openLine {
		fmt.Fprintln(o.stdout)
		o.openLine = false
	}
}

func (o *promptOutput) missedCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.missed
}

// cleanError shows an error whose text may carry the agent's words without
// control sequences; errors.As and Is still see what it wraps.
type cleanError struct{ err error }

func (e cleanError) Error() string { return plaintext.Clean(e.err.Error()) }

func (e cleanError) Unwrap() error { return e.err }
