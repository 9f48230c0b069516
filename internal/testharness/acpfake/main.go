// Command acpfake is a fake ACP agent for tests, built on the agent side of
// github.com/coder/acp-go-sdk. It speaks JSON-RPC over stdin and stdout,
// writes a few log lines to stderr (never protocol), and behaves as a strict
// agent would: session/new, session/load, session/resume and session/fork
// refuse a relative cwd or a relative additionalDirectories entry with
// -32602, refuse additionalDirectories altogether unless the capability is
// advertised, answer an unadvertised method with -32601 and an unknown
// session with -32002.
//
// Environment:
//
//	ACPMUX_FAKE_RECORD=FILE  append one JSON line per process start:
//	                         {"argv":[...],"cwd":"...","env":[...],"pid":N,"pgid":N}
//	ACPMUX_FAKE_WIRE=FILE    append every line received on stdin exactly as
//	                         received, one per line (what the client sent)
//	ACPMUX_FAKE_SENT=FILE    append every protocol line written to stdout
//	                         (what the agent sent; not the garbage or huge lines),
//	                         so a test can tell which agent request a client
//	                         response in the WIRE file answers
//	ACPMUX_FAKE_ADVERTISE=1  advertise agentCapabilities.sessionCapabilities.
//	                         additionalDirectories = {} (else the field is absent,
//	                         and a request carrying the field is refused with
//	                         -32602 "additionalDirectories not supported")
//	ACPMUX_FAKE_LOAD=0|1     advertise (and serve) session/load; unset or empty means 1
//	ACPMUX_FAKE_RESUME=1     advertise (and serve) sessionCapabilities.resume
//	ACPMUX_FAKE_FORK=1       advertise (and serve) sessionCapabilities.fork
//	                         (session/fork is an unstable ACP method)
//	ACPMUX_FAKE_STATE=DIR    keep sessions in DIR/<sessionId>.json (cwd, the
//	                         additionalDirectories last received, the history of
//	                         prompts and replies) so a later process can load,
//	                         resume or fork them; without it sessions live only
//	                         in this process
//	ACPMUX_FAKE_MODES=1      session/new, load, resume and fork answer with modes
//	                         (ask "Ask", code "Code"; ask first) and one config
//	                         option, a select "model" (fast "Fast", smart "Smart");
//	                         session/set_mode and session/set_config_option change
//	                         them (an unknown id is -32602), set_mode then sends a
//	                         current_mode_update; without it both are -32601
//	ACPMUX_FAKE_AUTH=KIND    session/new, load, resume and fork fail with
//	                         auth_required (-32000) until signed in; KIND is the
//	                         auth method initialize lists (see auth.go): 1 or
//	                         agent ("fake-login", authenticate with it), env
//	                         ("fake-key", authenticate with it once
//	                         ACPMUX_FAKE_KEY is set), terminal ("fake-terminal":
//	                         `acpfake --fake-login` writes the file
//	                         ACPMUX_FAKE_AUTH_MARKER, which signs in)
//	ACPMUX_FAKE_AUTH_NAME=TEXT  the method's name and description (read as
//	                         the body of a Go string: a hostile agent's)
//	ACPMUX_FAKE_INIT=mute|exit  mute: never answer initialize; exit: two stderr lines (with controls), then exit 3
//	ACPMUX_FAKE_COMMANDS=1   offer slash commands as agents do: session/new, load,
//	                         resume and fork are each followed by an
//	                         available_commands_update of three commands
//	                         (FakeCommands: review, test "package pattern",
//	                         explain "what to explain"); it may reach the client
//	                         just before or just after the answer. Without it
//	                         only the commands command offers them (so tests
//	                         that count updates see none they did not ask for)
//	ACPMUX_FAKE_SESSION_ID=TEXT  session/new and session/fork answer with TEXT as the
//	                         session id, whatever it holds (a hostile agent's id:
//	                         "../x", escape sequences); a session whose id is not
//	                         [A-Za-z0-9_-]{1,128} is kept in memory only, never in
//	                         ACPMUX_FAKE_STATE
//	ACPMUX_FAKE_DEAF_GATE=FILE  once a session/new is answered, stop reading
//	                         stdin until FILE exists (looked for every 10 ms):
//	                         an agent busy elsewhere, whose stdin fills up
//
// A prompt's text blocks are joined with newlines. The agent replies with an
// agent_message_chunk "echo: <prompt text>" and stopReason end_turn, unless
// the prompt's last line is a command:
//
//	permission        a tool_call, then session/request_permission (options
//	                  allow_once "Allow", reject_once "Reject"), then the reply
//	                  "permission: <optionId>" or "permission: cancelled"
//	permission always the same, with allow_always "Always allow" offered too
//	size              "size: N", N the bytes of the prompt's text (joined)
//	links             "links: " and every resource_link the session has been
//	                  sent, in order, "NAME URI MIMETYPE" each ("-" for no
//	                  mimeType), joined with " | "
//	read PATH         fs/read_text_file; "read: <content>" or "read error: <msg>"
//	write PATH TEXT   fs/write_text_file (PATH has no spaces, TEXT is the rest);
//	                  "wrote" or "write error: <msg>"
//	tool              tool_call "Fake tool" pending, then tool_call_update
//	                  in_progress, then completed
//	tool-at PATH LINE  tool_call "Fake tool" pending at location PATH line
//	                  LINE, then tool_call_update completed at line LINE+1
//	                  (PATH is all before the last space)
//	plan              a plan update with two entries
//	title TEXT        a session_info_update with title TEXT (read as the body
//	                  of a Go string when it is one: \x1b, \u202e), then
//	                  "title: set"
//	usage USED SIZE [AMOUNT CUR]
//	                  a usage_update with these numbers as they are (absurd
//	                  ones too), then "usage: sent"
//	think             an agent_thought_chunk "pondering", then the echo
//	slow              one chunk, then wait for session/cancel; stopReason cancelled
//	crash             one chunk, then exit with status 3
//	garbage           a non-JSON line straight to stdout, then the echo
//	huge              a single 20 MiB session/update line, then the echo
//	burst N           N agent_message_chunk updates back to back ("u000001 ", "u000002 "…), then end_turn
//	noise N           N _acpfake/noise extension notifications back to back, then "noise: N sent"
//	perms N           N request_permission at once ("Tool 1".."Tool N"), then "perms: Tool 1=<answer>; ..."
//	terminal CWD      terminal/create of `echo hi` (in CWD; "-" for none), then
//	                  wait_for_exit, output and release; "terminal: OUTPUT exit N"
//	                  or "terminal error: <msg>"
//	mode ID           the agent changes its own mode: a current_mode_update
//	                  to ID, then "mode: ID" (ACPMUX_FAKE_MODES=1)
//	osc               escapes and C0/C1 controls in chunks, thought, tool, plan, permission, stderr; "osc: <answer>"
//	read-lines PATH LINE LIMIT  fs/read_text_file with line and limit ("-" omits one)
//	flood-fs N PATH...  N concurrent fs/read_text_file requests; the reply counts the answers
//	race-read DIR OUT N  N reads of DIR/secret.txt while DIR swaps with a symlink to OUT
//	race-write DIR OUT N  N writes into DIR while DIR swaps with a symlink to OUT
//	write-big PATH N  fs/write_text_file of N bytes of text (lines of 64); replies as write
//	disk OP PATH [TO]  the agent's own system calls (write, read, list, mkdir, mv PATH TO,
//	                  call SOCKET METHOD: one JSON-RPC call on a unix socket,
//	                  signal PID: signal 0 to a process; caps NAME: the hex of
//	                  /proc/self/status's line NAME, such as CapBnd);
//	                  "disk: ok" or "disk: ERRNO" (a call's error: its code)
//	request-id-last N  a raw fs/write_text_file line of N bytes of content, its id "big-1"
//	                  after its params; then "request-id-last: sent B bytes"
//
// Commands for what a client draws richly (rich.go):
//
//	markdown          a long markdown reply (MarkdownReply: headings, emphasis,
//	                  lists, a link, a block quote, a table, a go code fence),
//	                  streamed a few lines per chunk
//	edit-diff         tool_call "Edit parser.go" (kind edit, at parser.go:3),
//	                  in_progress, then completed with two diffs: CWD/parser.go
//	                  changed, CWD/lexer.go new (no oldText); "edited parser.go
//	                  and lexer.go"
//	execute           tool_call "Run go test ./..." (kind execute), in_progress,
//	                  then completed with its output as a text content
//	                  (ExecuteLines tests, 82 lines)
//	execute-fail      the same as "Run go build ./...", failed with a build error
//	plan-full         a plan of three: completed/high, in_progress/medium,
//	                  pending/low
//	thoughts          two agent_thought_chunk of one thought, then "thought it through"
//	commands          an available_commands_update of the three commands, then
//	                  "commands: sent"
//	commands-withdraw an empty available_commands_update, then "commands: withdrawn"
//	permission-edit   tool_call "Edit main.go" (kind edit, with its diff), then
//	                  session/request_permission carrying kind edit and the diff,
//	                  then as permission: "permission: <optionId>"
//	terminal-content [ID]  tool_call "Run make" (kind execute) whose content is
//	                  terminal ID ("term-1"), completed; "terminal-content: sent"
//	hostile-diff      a completed edit whose diff path, old and new text, a text
//	                  content and a terminal id hold OSC 52, CSI, bidi controls,
//	                  C1, BEL and BS; "hostile: sent"
//	hostile-commands  commands with an escape, a space, a bidi control in the
//	                  name, an empty name, a name twice, escapes in a
//	                  description and a hint; "commands: sent"
//	big-message N     an agent message of N bytes (lines of 64) in 64 KiB chunks
//	big-diff N        a completed edit whose diff's newText is N bytes (at most
//	                  3 MiB); "big-diff: sent"
//
// Option ids equal their kinds (allow_once, reject_once). The permission
// request outlives session/cancel: the client must answer it (with the
// cancelled outcome), as the spec requires. A client error in read or
// write shows as its message, then its data as JSON if it has any.
//
// session/load replays the history (user_message_chunk then
// agent_message_chunk per turn) before it answers; session/resume does not
// replay; session/fork copies the history to a new session id.
package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/coder/acp-go-sdk"
)

// config is what the environment asks of this process.
type config struct {
	advertiseDirs bool
	load          bool
	resume        bool
	fork          bool
	auth          string // the auth method's kind, "" for none (auth.go)
	modes         bool
	stateDir      string
	sessionID     string // the session id to give new sessions, "" for a fresh one each
	commands      bool   // offer FakeCommands after each session setup
}

func configFromEnv() config {
	load := os.Getenv("ACPMUX_FAKE_LOAD")
	return config{
		advertiseDirs: os.Getenv("ACPMUX_FAKE_ADVERTISE") == "1",
		load:          load == "" || load == "1",
		resume:        os.Getenv("ACPMUX_FAKE_RESUME") == "1",
		fork:          os.Getenv("ACPMUX_FAKE_FORK") == "1",
		auth:          authKind(os.Getenv("ACPMUX_FAKE_AUTH")),
		modes:         os.Getenv("ACPMUX_FAKE_MODES") == "1",
		stateDir:      os.Getenv("ACPMUX_FAKE_STATE"),
		sessionID:     os.Getenv("ACPMUX_FAKE_SESSION_ID"),
		commands:      os.Getenv("ACPMUX_FAKE_COMMANDS") == "1",
	}
}

func main() {
	if fakeLogin(os.Args[1:]) {
		return
	}
	cfg := configFromEnv()
	rec := startrecord.Current()
	if err := startrecord.Append(rec); err != nil {
		fail(err)
	}
	cwd := rec.Cwd

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	logf("acpfake: starting pid %d in %s", os.Getpid(), cwd)
	logf("acpfake: advertise additionalDirectories=%v loadSession=%v resume=%v fork=%v auth=%q state=%q",
		cfg.advertiseDirs, cfg.load, cfg.resume, cfg.fork, cfg.auth, cfg.stateDir)

	var in io.Reader = os.Stdin
	if path := os.Getenv("ACPMUX_FAKE_WIRE"); path != "" {
		in = &lineTee{r: os.Stdin, path: path}
	}
	deaf := &deafReader{r: in, gate: os.Getenv("ACPMUX_FAKE_DEAF_GATE")}
	in = deaf
	out := &stdout{w: os.Stdout}
	if path := os.Getenv("ACPMUX_FAKE_SENT"); path != "" {
		out.sent = path
	}

	ag := newAgent(cfg, out)
	ag.deaf = deaf
	conn := acp.NewAgentSideConnection(ag, out, in)
	conn.SetLogger(logger)
	ag.conn = conn
	<-conn.Done()
	logf("acpfake: stdin closed, exiting")
}

// logf writes one log line to stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// appendFile appends b to path in one write, so lines from several fake
// processes sharing a file do not interleave.
func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "acpfake:", err)
	os.Exit(3)
}

// lineTee passes stdin through to the SDK unchanged and appends each
// complete line it carries, exactly as received, to a file.
type lineTee struct {
	r       io.Reader
	path    string
	pending []byte
}

func (t *lineTee) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.pending = append(t.pending, p[:n]...)
		if i := bytes.LastIndexByte(t.pending, '\n'); i >= 0 {
			if werr := appendFile(t.path, t.pending[:i+1]); werr != nil {
				logf("acpfake: record wire: %v", werr)
			}
			t.pending = append(t.pending[:0], t.pending[i+1:]...)
		}
	}
	if err != nil && len(t.pending) > 0 {
		// A last line without a newline is recorded with one.
		if werr := appendFile(t.path, append(t.pending, '\n')); werr != nil {
			logf("acpfake: record wire: %v", werr)
		}
		t.pending = nil
	}
	return n, err
}

// deafReader stops reading, once told to (stop), until the file gate
// exists; with no gate it reads on.
type deafReader struct {
	r       io.Reader
	gate    string
	stopped atomic.Bool
}

// stop makes the next Read wait for the gate.
func (d *deafReader) stop() {
	if d.gate != "" {
		d.stopped.Store(true)
	}
}

func (d *deafReader) Read(p []byte) (int, error) {
	if d.stopped.Load() {
		logf("acpfake: deaf until %s exists", d.gate)
		for {
			if _, err := os.Stat(d.gate); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		d.stopped.Store(false)
		logf("acpfake: reading again")
	}
	return d.r.Read(p)
}

// stdout serialises the SDK's writes (one whole message per Write) with the
// raw lines the garbage and huge commands write, so no line is split, and
// optionally records the protocol lines.
type stdout struct {
	mu   sync.Mutex
	w    io.Writer
	sent string
}

// Write writes one protocol message. It is recorded first, so a test that
// has seen the message can rely on the record.
func (s *stdout) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent != "" {
		if err := appendFile(s.sent, b); err != nil {
			logf("acpfake: record sent: %v", err)
		}
	}
	return s.w.Write(b)
}

// writeRaw writes bytes that are not protocol, unrecorded.
func (s *stdout) writeRaw(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.w.Write(b)
	return err
}
