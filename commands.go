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

	// forkWorktree is fork's --worktree.
	forkWorktree optBool
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

// isRefusal reports whether err is outside input refused, which exits 2:
// a folder list, a name, a relative ACPMUX_HOME.
func isRefusal(err error) bool {
	if _, ok := sessions.AsFolderError(err); ok {
		return true
	}
	if _, ok := sessions.AsNameError(err); ok {
		return true
	}
	if _, ok := sessions.AsProjectError(err); ok {
		return true
	}
	if _, ok := transfer.AsRefusal(err); ok {
		return true
	}
	var wr worktreeRefusal
	if errors.As(err, &wr) {
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

func (a *app) createChat(cf chatFlags) (sessions.Entry, error) {
	if err := a.open(); err != nil {
		return sessions.Entry{}, err
	}
	name := cf.harness
	if name == "" {
		name = a.table.Default(a.cfg, a.getenv)
	}
	if _, ok := a.table.Get(name); !ok {
		return sessions.Entry{}, usagef("unknown harness %q (known: %s)", name, strings.Join(a.table.Names(), ", "))
	}
	cwd := a.absPath(cf.cwd)
	if cwd != "" {
		if _, err := sessions.Canonical(cwd); err != nil {
			return sessions.Entry{}, usagef("--cwd %q: %v", cf.cwd, err)
		}
	}
	ask, wantWorktree, err := a.worktreeForNew(cf, &cwd)
	if err != nil {
		return sessions.Entry{}, err
	}
	// The folders and the files are refused together (Store.Create
	// validates both lists in one refusal).
	m, err := a.store.Create(sessions.NewChat{
		Name: cf.name, Harness: name, Cwd: cwd,
		AdditionalDirectories: a.absPaths(cf.dirs), AdditionalFiles: a.absPaths(cf.files),
	})
	if err != nil {
		return sessions.Entry{}, err
	}
	if wantWorktree {
		if m, err = a.giveWorktree(m, ask); err != nil {
			return sessions.Entry{}, err
		}
	}
	a.warnNotInstalled(name)
	return sessions.Entry{ID: m.ID, Meta: m}, nil
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

func (a *app) addFolders(ref string, dirs []string) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	dirs = a.absPaths(dirs)
	if e.Meta != nil {
		// A folder the chat already has keeps its place; when every one
		// given is there already, nothing is written and no server told.
		var fresh, had []string
		for _, d := range dirs {
			if c, err := sessions.Canonical(d); err == nil && slices.Contains(e.Meta.AdditionalDirectories, c) {
				had = append(had, c)
			} else {
				fresh = append(fresh, d)
			}
		}
		for _, d := range had {
			fmt.Fprintf(a.stderr, "acpmux-tui: chat %s already has %s\n", e.ID, d)
		}
		if len(fresh) == 0 {
			fmt.Fprintf(a.stdout, "chat %s already has every folder given: nothing changed\n", e.ID)
			return nil
		}
		dirs = fresh
	}
	m, err := a.store.AddFolders(e.ID, dirs)
	if err != nil {
		return err
	}
	return a.foldersStored(m, "folders")
}

// foldersStored tells a running server of a chat's new folders or files
// (what: which of the two; a running chat takes them at the end of its
// turn) and prints the chat as it is then. The list is stored whatever the
// server says.
func (a *app) foldersStored(m *sessions.Meta, what string) error {
	live, err := client.FoldersChanged(a.store.Home(), m.ID)
	if err != nil {
		fmt.Fprintf(a.stderr, "acpmux-tui: %s stored, but the server was not told (the chat takes them at its next start): %v\n", what, err)
	}
	if live != nil {
		a.live, a.asked = map[string]proto.ChatJSON{m.ID: *live}, true
	}
	return a.printChat(sessions.Entry{ID: m.ID, Meta: m}, false)
}

func (a *app) removeFolders(ref string, dirs []string) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	m, err := a.store.RemoveFolders(e.ID, a.absPaths(dirs))
	if err != nil {
		return err
	}
	return a.foldersStored(m, "folders")
}

// derive makes a fork, side chat or handoff of a chat; it carries the
// parent's folders. An ACP fork asks the agent for session/fork at its
// first start.
func (a *app) derive(ref string, d sessions.Derivation, asJSON, edit bool) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	if e.Broken != nil {
		return e.Broken
	}
	if d.Harness != "" {
		if _, ok := a.table.Get(d.Harness); !ok {
			return usagef("unknown harness %q (known: %s)", d.Harness, strings.Join(a.table.Names(), ", "))
		}
	}
	if d.Cwd != "" {
		given := d.Cwd
		d.Cwd = a.absPath(given)
		if _, err := sessions.Canonical(d.Cwd); err != nil {
			return usagef("--cwd %q: %v", given, err)
		}
	}
	ask, wantWorktree := worktreeAsk{}, false
	if d.Origin == sessions.OriginFork && d.Cwd == "" {
		if ask, wantWorktree, err = a.worktreeForFork(e.Meta, a.forkWorktree.v, a.forkWorktree.set); err != nil {
			return err
		}
	}
	d.Capsule = a.capsuleFor(e.Meta, d)
	if edit && d.Capsule != "" {
		if d.Capsule, err = a.editCapsule(d.Capsule); err != nil {
			return err
		}
	}
	m, err := a.store.Derive(e.ID, d)
	if err != nil {
		return err
	}
	if wantWorktree {
		if m, err = a.giveWorktree(m, ask); err != nil {
			return err
		}
	}
	a.warnNotInstalled(m.Harness)
	if d.Capsule != "" && !edit {
		a.capsuleStored(m.ID, d.Capsule)
	}
	if asJSON && d.Capsule != "" {
		return a.printJSON(withCapsule(a.view(sessions.Entry{ID: m.ID, Meta: m}), d.Capsule))
	}
	return a.printChat(sessions.Entry{ID: m.ID, Meta: m}, asJSON)
}

// rename gives a chat a new name: through the server when one runs (so
// it and its clients see the name at once), else in the store. A refused
// name exits 2 and changes nothing.
func (a *app) rename(ref, name string) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	if e.Broken != nil {
		return e.Broken
	}
	was := e.Meta.Name
	live, err := client.Rename(a.store.Home(), e.ID, name)
	if err != nil {
		return err
	}
	if live == nil {
		if _, err := a.store.Rename(e.ID, name); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stdout, "renamed %s: %q → %q\n", e.ID, was, name)
	return nil
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
