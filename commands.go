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
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

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
	"github.com/charmbracelet/x/ansi"
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
	// make and change of this machine's chats goes through it (target.go).
	chats *chatsvc.Service
}

// open loads the paths, config, store and harness table once.
func (a *app) open() error {
	if a.store != nil {
		return nil
	}
	paths, err := config.ResolvePaths(a.getenv)
	if err != nil {
		return err
	}
	cfg, table, err := harness.Load(paths.Config)
	if err != nil {
		return err
	}
	store, err := sessions.OpenStore(paths.Home)
	if err != nil {
		return err
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

// newOptions are new's flags.
type newOptions struct {
	chat   chatFlags
	host   string
	asJSON bool
}

// newRun makes a chat on the target and prints it.
func newRun(a *app, o newOptions) error {
	return a.onTarget(o.host, func(t *target) error {
		m, err := t.create(o.chat)
		if err != nil {
			return err
		}
		return t.print(m, o.asJSON, "")
	})
}

// create makes the chat the flags describe. --worktree with no --cwd here
// is a worktree of the repository the caller is in.
func (t *target) create(cf chatFlags) (*sessions.Meta, error) {
	cwd, err := t.cwd(cf.cwd)
	if err != nil {
		return nil, err
	}
	dirs, err := t.paths("--dir", cf.dirs)
	if err != nil {
		return nil, err
	}
	files, err := t.paths("--file", cf.files)
	if err != nil {
		return nil, err
	}
	n := sessions.NewChat{Name: cf.name, Harness: cf.harness, Cwd: cwd, AdditionalDirectories: dirs, AdditionalFiles: files, WorktreeBase: cf.base}
	if cf.worktree.set {
		n.Worktree = &cf.worktree.v
	}
	if cf.worktree.v && cwd == "" && t.host == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("--worktree: the current folder: %w", err)
		}
		n.Cwd = wd
	}
	// The folders and the files are refused together.
	m, err := t.chats.Create(n)
	if err != nil {
		return nil, err
	}
	t.warnNotInstalled(m.Harness)
	return m, nil
}

// createChat makes the chat the bare command's flags describe, here.
func (a *app) createChat(cf chatFlags) (sessions.Entry, error) {
	var e sessions.Entry
	err := a.onTarget("", func(t *target) error {
		m, err := t.create(cf)
		if err == nil {
			e = sessions.Entry{ID: m.ID, Meta: m}
		}
		return err
	})
	return e, err
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
	row("created", v.Created)
	return w.Flush()
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
		// transcripts are (plaintext.Line).
		t.add(v.ID, lsName(plaintext.Line(v.Name)), plaintext.Line(v.Harness), v.Status, strconv.Itoa(len(v.AdditionalDirectories)), plaintext.Line(v.Cwd))
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

// foldersOptions are add-dir's and rm-dir's flags.
type foldersOptions struct {
	ref    string
	dirs   []string
	remove bool // rm-dir
	host   string
}

// foldersRun adds folders to a chat or takes them out, and prints the
// chat. A folder the chat already has keeps its place; when every one
// added is there already, nothing is written and nothing told.
func foldersRun(a *app, o foldersOptions) error {
	return a.onTarget(o.host, func(t *target) error {
		e, err := t.chats.Resolve(o.ref)
		if err != nil {
			return err
		}
		flag := "add-dir"
		if o.remove {
			flag = "rm-dir"
		}
		dirs, err := t.paths(flag, o.dirs)
		if err != nil {
			return err
		}
		var m *sessions.Meta
		if o.remove {
			m, err = t.chats.RemoveFolders(e.ID, dirs)
		} else {
			if dirs = t.fresh(e, dirs, "folder"); len(dirs) == 0 {
				return nil
			}
			m, err = t.chats.AddFolders(e.ID, dirs)
		}
		if err = t.untold(err); err != nil {
			return err
		}
		return t.print(m, false, "")
	})
}

// fresh is the paths given that chat e does not have already (what:
// "folder" or "file"); each it has is said on stderr, and when it has
// them all, stdout says nothing changed.
func (t *target) fresh(e sessions.Entry, paths []string, what string) []string {
	if e.Meta == nil {
		return paths
	}
	have := e.Meta.AdditionalDirectories
	if what == "file" {
		have = e.Meta.AdditionalFiles
	}
	var fresh []string
	for _, p := range paths {
		if c, ok := t.same(p, what == "file"); ok && slices.Contains(have, c) {
			fmt.Fprintf(t.a.stderr, "acpmux-tui: chat %s already has %s\n", e.ID, c)
		} else {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) == 0 {
		fmt.Fprintf(t.a.stdout, "chat %s already has every %s given: nothing changed\n", e.ID, what)
	}
	return fresh
}

// deriveOptions are fork's, side's and handoff's flags.
type deriveOptions struct {
	ref string
	// d is the derivation asked: its origin, harness, cwd and worktree.
	d      sessions.Derivation
	host   string
	asJSON bool
	// edit opens the capsule in $EDITOR before the chat is made.
	edit bool
}

// deriveRun makes a fork, side chat or handoff of a chat, on the target:
// it carries the parent's folders and files, and a capsule of what was
// said (a handoff, or a fork its harness cannot make natively), written
// where the parent runs, shown in $EDITOR first with edit. An ACP fork
// asks the agent for session/fork at its first start.
func deriveRun(a *app, o deriveOptions) error {
	if o.edit && strings.TrimSpace(a.getenv("EDITOR")) == "" {
		return errNoEditor
	}
	return a.onTarget(o.host, func(t *target) error {
		e, err := t.chats.Resolve(o.ref)
		if err != nil {
			return err
		}
		if e.Broken != nil {
			return e.Broken
		}
		d := o.d
		if d.Cwd, err = t.cwd(d.Cwd); err != nil {
			return err
		}
		if d.Capsule, err = t.chats.Capsule(e.ID, d); err != nil {
			return err
		}
		if o.edit && d.Capsule != "" {
			if d.Capsule, err = a.editCapsule(d.Capsule); err != nil {
				return err
			}
		}
		m, err := t.chats.Derive(e.ID, d)
		if err != nil {
			return err
		}
		t.warnNotInstalled(m.Harness)
		if d.Capsule != "" && !o.edit {
			t.capsuleStored(m.ID, d.Capsule)
		}
		return t.print(m, o.asJSON, d.Capsule)
	})
}

// renameOptions are rename's arguments.
type renameOptions struct{ ref, name string }

// renameRun gives a chat a new name; a refused name exits 2 and changes
// nothing.
func renameRun(a *app, o renameOptions) error {
	return a.onTarget("", func(t *target) error {
		e, err := t.chats.Resolve(o.ref)
		if err != nil {
			return err
		}
		if e.Broken != nil {
			return e.Broken
		}
		if _, err := t.chats.Rename(e.ID, o.name); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "renamed %s: %q → %q\n", e.ID, e.Meta.Name, o.name)
		return nil
	})
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

// harnessJSON is one row of `harnesses --json`.
type harnessJSON struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	Kind      string   `json:"kind"`
	Command   string   `json:"command"`
	Args      []string `json:"args"`
	// Installed is the program that would run, or "" when none is found.
	Installed string `json:"installed"`
	// FoldersVia is how a chat's folders reach this harness.
	FoldersVia string `json:"foldersVia"`
}

// harnessRows is the harness table in effect, with what is installed.
func (a *app) harnessRows() []harnessJSON {
	var rows []harnessJSON
	for _, s := range a.table.All() {
		installed, err := s.ResolveCommand(a.getenv)
		if err != nil {
			installed = ""
		}
		rows = append(rows, harnessJSON{
			Name: s.Name, Transport: s.Transport, Kind: s.Kind,
			Command: s.Command, Args: append([]string{}, s.Args...),
			Installed: installed, FoldersVia: s.FoldersVia(1, nil),
		})
	}
	return rows
}

func (a *app) harnesses(asJSON bool) error {
	if err := a.open(); err != nil {
		return err
	}
	rows := a.harnessRows()
	if asJSON {
		return a.printJSON(rows)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tTRANSPORT\tKIND\tCOMMAND\tFOLDERS VIA\tINSTALLED")
	for _, r := range rows {
		cmd := strings.TrimSpace(r.Command + " " + strings.Join(r.Args, " "))
		found := r.Installed
		if found == "" {
			found = "no"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Transport, r.Kind, cmd, r.FoldersVia, found)
	}
	return w.Flush()
}

// versionJSON is what `version --json` prints.
type versionJSON struct {
	Version string `json:"version"`
	// Go is the Go release the binary was built with.
	Go string `json:"go"`
	// Commit is the git commit built from (vcs.revision), or "" when the
	// build did not record one.
	Commit string `json:"commit"`
	// Modified is set when the working tree had changes not in Commit.
	Modified bool `json:"modified"`
}

// buildVersion reads the version and the build's recorded git state.
func buildVersion() versionJSON {
	v := versionJSON{Version: version, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// printVersion prints `acpmux-tui VERSION (commit C, GO)`, or the JSON object.
func (a *app) printVersion(asJSON bool) error {
	v := buildVersion()
	if asJSON {
		return a.printJSON(v)
	}
	var about []string
	if v.Commit != "" {
		c := v.Commit[:min(len(v.Commit), 12)]
		if v.Modified {
			c += "+modified"
		}
		about = append(about, "commit "+c)
	}
	about = append(about, v.Go)
	fmt.Fprintf(a.stdout, "acpmux-tui %s (%s)\n", v.Version, strings.Join(about, ", "))
	return nil
}
