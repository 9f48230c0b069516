package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/chatsvc"
	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/logfile"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/internal/transfer"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// app is what the subcommands share: output streams and, loaded on first
// use, the paths, config, chat store and harness table.
type app struct {
	stdout, stderr io.Writer
	getenv         func(string) string

	paths config.Paths
	cfg   *config.Config
	store *sessions.Store
	table *harness.Table

	// live is the live part of the chats a running server holds (their
	// status, pending lists, how folders reached them), asked once.
	live  map[string]proto.ChatJSON
	asked bool
	// liveErr says why a server that runs could not be asked (a
	// *client.Unanswered); ls and show print its status instead.
	liveErr error

	// chats is the chat service over store (service): what the commands
	// make and change of this machine's chats goes through it
	// (chat_target.go).
	chats *chatsvc.Service
}

// open loads the paths, config, store and harness table once. A config
// file that does not read is an error (openDespiteConfig is the other
// way).
func (a *app) open() error { return a.load(false) }

// load is open; despiteConfig goes on past a config file that does not
// read (openDespiteConfig).
func (a *app) load(despiteConfig bool) error {
	if a.store != nil {
		return nil
	}
	paths, err := config.ResolvePaths(a.getenv)
	if err != nil {
		return err
	}
	cfg, table, cfgErr := harness.Load(paths.Config)
	if cfgErr != nil && !despiteConfig {
		return cfgErr
	}
	store, err := sessions.OpenStore(paths.Home)
	if err != nil {
		return err
	}
	if cfgErr != nil {
		cfg, table = a.configDespite(store.Home(), cfgErr)
	}
	a.paths, a.cfg, a.table, a.store = paths, cfg, table, store
	return nil
}

// service is the chat service over the store (open first), made at its
// first use (ls and show make none): its notes and a worktree's setup
// output go to stderr, and the agent home's server is its Live.
func (a *app) service() *chatsvc.Service {
	if a.chats == nil {
		a.chats = chatsvc.New(chatsvc.Options{
			Store: a.store, Config: func() *config.Config { return a.cfg }, Table: func() *harness.Table { return a.table },
			Getenv: a.getenv, Live: cliLive{a}, Out: a.stderr,
		})
	}
	return a.chats
}

// isRefusal reports whether err is outside input refused, which exits 2:
// a folder list, a name, a project folder, a request the chat service
// refuses (chatsvc.IsRefusal) here or on a host (client.Refusal), a
// bundle, a relative ACPMUX_HOME.
func isRefusal(err error) bool {
	if chatsvc.IsRefusal(err) {
		return true
	}
	if _, ok := transfer.AsRefusal(err); ok {
		return true
	}
	var hostRefusal *client.Refusal
	if errors.As(err, &hostRefusal) {
		return true
	}
	return errors.Is(err, config.ErrRelativeHome)
}

// absPath resolves a path typed on the command line: "~" and "~/…"
// against $HOME, a relative path against this process's working folder,
// so the validator (which takes absolute paths only, as the socket and
// ACP do) sees what the user meant. An empty path, or "~" with no HOME,
// is left for the validator to refuse.
func (a *app) absPath(p string) string {
	if p == "" {
		return p
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home := a.getenv("HOME")
		if home == "" || !filepath.IsAbs(home) {
			return p
		}
		return filepath.Join(home, p[1:])
	}
	if filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	return filepath.Join(wd, p)
}

// absPaths is absPath of each.
func (a *app) absPaths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = a.absPath(p)
	}
	return out
}

func (a *app) resolve(ref string) (sessions.Entry, error) {
	if err := a.open(); err != nil {
		return sessions.Entry{}, err
	}
	return a.store.Resolve(ref)
}

// view is a chat as printed, with its live status when a server runs it
// ("stopped" otherwise); asking never starts a server.
func (a *app) view(e sessions.Entry) proto.ChatJSON {
	a.askServer()
	via, expected := harness.ViaNone, false
	live := a.live[e.ID]
	if e.Meta != nil {
		if spec, ok := a.table.Get(e.Meta.Harness); ok {
			via, expected = spec.ChatFoldersVia(e.Meta)
		}
		if live.FoldersVia != "" {
			// What the running (or last) harness says, as the server
			// has it.
			via, expected = live.FoldersVia, live.FoldersViaExpected
		}
	}
	status := client.StatusOf(a.live, e.ID)
	var un *client.Unanswered
	if errors.As(a.liveErr, &un) {
		status = un.Status
	}
	e.NoProject = e.Meta != nil && a.store.NoProject(e.Meta)
	a.pruneMissing(e.Meta)
	j := e.JSON(status, via)
	j.FoldersViaExpected = expected
	if e.Meta != nil && j.FilesVia == "" {
		// Before the first start with files: the harness's expectation.
		if spec, ok := a.table.Get(e.Meta.Harness); ok {
			j.FilesVia, _ = spec.ChatFilesVia(e.Meta)
		}
	}
	j.PendingDirectories, j.PendingFiles, j.StatusFrom, j.Unread = live.PendingDirectories, live.PendingFiles, live.StatusFrom, live.Unread
	if j.Status == proto.StatusFailed.String() {
		j.Failed, j.Failure = live.Failed, live.Failure
	}
	j.SignIn = live.SignIn
	if live.Usage != nil {
		j.Usage = live.Usage // else the chat file's, as last said
	}
	if e.Meta != nil && e.Meta.Sandbox {
		spec, _ := a.table.Get(e.Meta.Harness)
		j.Sandbox = spec.SandboxJSON(e.Meta, a.store.Home(), os.Environ())
	}
	return j
}

// askServer asks the agent home's server, once, for every chat as it has
// them (never starting one); a server that runs but does not answer is
// said on stderr, and the statuses printed then say so.
func (a *app) askServer() {
	if a.asked {
		return
	}
	a.asked = true
	a.live, a.liveErr = client.AskLive(a.store.Home())
	if a.liveErr != nil {
		fmt.Fprintf(a.stderr, "acpmux-tui: %v; the statuses shown are not live\n", a.liveErr)
	}
}

func (a *app) printJSON(v any) error {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	// Values from chat files and agents may hold DEL and C1 controls,
	// which encoding/json writes as they are.
	_, err := io.WriteString(a.stdout, plaintext.JSON(buf.String()))
	return err
}

// printChat prints a chat of this machine's store, as show does.
func (a *app) printChat(e sessions.Entry, asJSON bool) error {
	return a.printView(a.view(e), "", e.Meta, asJSON)
}

// printView prints a chat as the store or a server gives it. host names
// the host it is on ("" for this machine); meta, for a chat of this
// machine, adds what its harness table says of it (when the running
// harness takes new folders, its capsule).
func (a *app) printView(v proto.ChatJSON, host string, meta *sessions.Meta, asJSON bool) error {
	if asJSON {
		return a.printJSON(v)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	// Every value may come from a chat file or an agent: shown as
	// transcripts are, with no escape sequence or control character.
	row := func(k, v string) { fmt.Fprintf(w, "%s\t%s\n", k, plaintext.Line(v)) }
	row("id", v.ID)
	if host != "" {
		row("host", host)
	}
	if v.Broken != "" {
		row("broken", v.Broken)
		return w.Flush()
	}
	row("name", v.Name)
	if v.Title != "" {
		row("title", v.Title)
	}
	row("harness", v.Harness)
	cwd := v.Cwd
	if v.NoProject {
		cwd += "  (no project: the chat's own folder)"
	}
	row("cwd", cwd)
	if len(v.AdditionalDirectories) == 0 {
		row("folders", "(none)")
	}
	for i, d := range v.AdditionalDirectories {
		label := ""
		if i == 0 {
			label = "folders"
		}
		row(label, d)
	}
	fileRows(row, v)
	worktreeRows(row, v.Worktree)
	if v.PendingDirectories != nil || v.PendingFiles != nil {
		when := proto.PendingAtTurnEnd
		if spec, ok := a.table.Get(v.Harness); ok && meta != nil && spec.Transport == harness.TransportPty && !mux.ResumesConversation(spec, meta) {
			when = proto.PendingAtRestart + " (" + harness.StartsFresh + ")"
		}
		row("", "(the running harness takes these "+when+")")
	}
	if v.FoldersViaExpected {
		row("folders via", v.FoldersVia+" (expected: not started yet)")
	} else {
		row("folders via", v.FoldersVia)
	}
	if len(v.AdditionalFiles) > 0 {
		row("files via", sessions.FilesViaWords(v.FilesVia))
	}
	if v.Origin != "" {
		row("origin", v.Origin+" of "+v.Parent)
	}
	if v.AgentSessionID != "" {
		row("agent session", v.AgentSessionID)
	}
	a.capsuleRows(row, v, meta)
	status := v.Status
	if from := proto.StatusSource(v.StatusFrom).Phrase(); from != "" {
		status += " (" + from + ")"
	}
	if v.Unread {
		status += ", unread"
	}
	row("status", status)
	if v.Failed != "" {
		row("failed", v.Failed)
	}
	failureRows(row, v.Failure)
	usageRows(row, v.Usage)
	a.signInRows(row, v)
	if s := v.Sandbox; s != nil {
		row("sandbox", s.Summary)
		if s.Refused != "" {
			row("", s.Refused)
		}
	}
	row("created", v.Created)
	return w.Flush()
}

// failureRows say how a failed chat's harness last ended: the line it
// printed that says why, the command it was started with (each argument
// quoted as a shell would need it, so a copy runs it), and its exit.
func failureRows(row func(k, v string), f *proto.FailureJSON) {
	if f == nil {
		return
	}
	if f.Said != "" {
		row("reason", `"`+f.Said+`"`)
	}
	if len(f.Command) > 0 {
		shown := harness.Shown(f.Command)
		for i, a := range shown {
			shown[i] = harness.ShellQuote(a)
		}
		row("command", strings.Join(shown, " "))
	}
	if f.Exit != "" {
		row("exit", f.Exit)
	}
}

// usageRows say what the chat's agent last said of its context window
// and cost, when it said.
func usageRows(row func(k, v string), u *proto.Usage) {
	if u == nil {
		return
	}
	row("context", usageContext(u))
	if u.Cost != nil {
		row("cost", u.Cost.String())
	}
}

// usageContext is a context window as show says it: "1000 / 200000
// tokens (0 %)".
func usageContext(u *proto.Usage) string {
	s := strconv.FormatInt(u.Used, 10) + " / " + strconv.FormatInt(u.Size, 10) + " tokens"
	if u.Size > 0 {
		s += " (" + strconv.Itoa(u.Percent()) + " %)"
	}
	return s
}

// capsuleRows say, for a chat of this machine, what its first message
// carries (a capsule) or that its harness keeps no session.
func (a *app) capsuleRows(row func(k, v string), v proto.ChatJSON, meta *sessions.Meta) {
	switch {
	case meta == nil:
	case meta.Capsule && meta.Origin == sessions.OriginFork:
		row("capsule", harness.ForkedAsCapsule)
		row("", a.capsuleLine(meta))
	case meta.Capsule:
		row("capsule", a.capsuleLine(meta))
	default:
		if spec, ok := a.table.Get(v.Harness); ok && !spec.Resumes() {
			row("agent session", "(none: "+harness.StartsFresh+")")
		}
	}
}

func (a *app) list(asJSON bool) error {
	if err := a.open(); err != nil {
		return err
	}
	entries, err := a.listEntries()
	if err != nil {
		return err
	}
	// Each chat's view is made as it is printed, not all first: at 1,000
	// chats the slice of views was 300 kB of fresh memory to fault in.
	return a.printViews(len(entries), func(i int) proto.ChatJSON { return a.view(entries[i]) }, asJSON)
}

// printViews prints the n chats view gives as ls does: a table, or a JSON
// array. view(i) is asked for each in turn, once.
func (a *app) printViews(n int, view func(i int) proto.ChatJSON, asJSON bool) error {
	if asJSON {
		return printJSONList(a.stdout, n, view)
	}
	if n == 0 {
		fmt.Fprintln(a.stdout, "no chats yet: acpmux-tui new [--dir DIR]... creates one")
		return nil
	}
	// The table is written line by line: one write to stdout per cell was
	// a tenth of ls's time at 1,000 chats.
	out := bufio.NewWriterSize(a.stdout, 64<<10)
	t := newCellTable(6, n+1)
	t.add("ID", "NAME", "HARNESS", "STATUS", "FOLDERS", "CWD")
	for i := range n {
		v := view(i)
		if v.Broken != "" {
			t.add(v.ID, "", "", "broken", "", plaintext.Line(firstLine(v.Broken)))
			continue
		}
		// Name, harness and cwd come from the chat file: shown as
		// transcripts are (plaintext.Line). NAME is the agent's title
		// where the user gave the chat no name (Meta.Label).
		name := (&sessions.Meta{ID: v.ID, Name: v.Name, Title: v.Title, Harness: v.Harness, Cwd: v.Cwd}).Label()
		t.add(v.ID, lsName(plaintext.Line(name)), plaintext.Line(v.Harness), v.Status, strconv.Itoa(len(v.AdditionalDirectories)), plaintext.Line(v.Cwd))
	}
	if err := t.writeTo(out); err != nil {
		return err
	}
	return out.Flush()
}

// listEntries returns every chat's entry for ls, and asks the server
// meanwhile for what it has live (a.view adds it). The server is asked only
// the live part, while the files are read here: its full list cost more
// than the files do (it reads them too, then encodes 1,000 chats for this
// side to decode).
func (a *app) listEntries() ([]sessions.Entry, error) {
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		a.askServer()
	}()
	entries, err := a.store.ListOnce()
	<-asked
	return entries, err
}

// lsNameWidth is the widest name `ls` prints, in terminal cells; a longer
// one is cut and ends in "…" (show prints it whole).
const lsNameWidth = 40

// lsName is a chat's name cut to the NAME column, so one long name does not
// push every other column off the screen. Names hold no control
// characters (sessions.CheckName); the width is measured in cells, so
// wide characters count as two.
func lsName(name string) string {
	if ansi.StringWidth(name) <= lsNameWidth {
		return name
	}
	return ansi.Truncate(name, lsNameWidth, "…")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// warnNotInstalled warns on stderr when a chat just made runs a harness
// that is not installed: the chat is made all the same (exit 0), and
// starts once the harness is installed.
func (a *app) warnNotInstalled(harnessName string) {
	spec, ok := a.table.Get(harnessName)
	if !ok {
		return
	}
	if _, err := spec.ResolveCommand(a.getenv); err != nil {
		fmt.Fprintf(a.stderr, "acpmux-tui: warning: %s is not installed (%q not found on PATH); the chat is created, and starts once it is\n", harnessName, spec.Command)
	}
}

// logger opens the log file in the agent home; the log is where harness
// stderr and mux events go, never the terminal a harness draws on. It
// rotates at a size cap, and a record repeated many times in a few seconds
// is written a few times and then counted (see internal/logfile).
func (a *app) logger() (*slog.Logger, func(), error) {
	l, err := logfile.OpenLogger(a.paths.Log())
	if err != nil {
		return nil, nil, err
	}
	return l.Logger, func() { l.Close() }, nil
}
