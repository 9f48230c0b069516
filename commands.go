package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/mux"
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
	cfg, err := config.Load(paths.Config)
	if err != nil {
		return err
	}
	table, err := harness.NewTable(cfg)
	if err != nil {
		return fmt.Errorf("config %s: %w", paths.Config, err)
	}
	store, err := sessions.OpenStore(paths.Home)
	if err != nil {
		return err
	}
	a.paths, a.cfg, a.table, a.store = paths, cfg, table, store
	return nil
}

func isRefusal(err error) bool {
	_, ok := sessions.AsFolderError(err)
	return ok
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
	if cf.cwd != "" {
		if _, err := sessions.Canonical(cf.cwd); err != nil {
			return sessions.Entry{}, usagef("--cwd %q: %v", cf.cwd, err)
		}
	}
	m, err := a.store.Create(sessions.NewChat{
		Name: cf.name, Harness: name, Cwd: cf.cwd, AdditionalDirectories: cf.dirs,
	})
	if err != nil {
		return sessions.Entry{}, err
	}
	return sessions.Entry{ID: m.ID, Meta: m}, nil
}

func (a *app) resolve(ref string) (sessions.Entry, error) {
	if err := a.open(); err != nil {
		return sessions.Entry{}, err
	}
	return a.store.Resolve(ref)
}

// view is a chat as printed; status is "stopped" from the command line, as no
// harness runs outside the TUI or attach.
func (a *app) view(e sessions.Entry) sessions.ChatJSON {
	via := harness.ViaNone
	if e.Meta != nil {
		if spec, ok := a.table.Get(e.Meta.Harness); ok {
			via = spec.FoldersVia(len(e.Meta.AdditionalDirectories), nil)
		}
	}
	return e.JSON("stopped", via)
}

func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (a *app) printChat(e sessions.Entry, asJSON bool) error {
	v := a.view(e)
	if asJSON {
		return a.printJSON(v)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(w, "%s\t%s\n", k, v) }
	row("id", v.ID)
	if v.Broken != "" {
		row("broken", v.Broken)
		return w.Flush()
	}
	row("name", v.Name)
	row("harness", v.Harness)
	cwd := v.Cwd
	if e.Meta != nil && a.store.NoProject(e.Meta) {
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
	row("folders via", v.FoldersVia)
	if v.Origin != "" {
		row("origin", v.Origin+" of "+v.Parent)
	}
	if v.AgentSessionID != "" {
		row("agent session", v.AgentSessionID)
	}
	row("status", v.Status)
	row("created", v.Created)
	return w.Flush()
}

func (a *app) list(asJSON bool) error {
	if err := a.open(); err != nil {
		return err
	}
	entries, err := a.store.List()
	if err != nil {
		return err
	}
	views := make([]sessions.ChatJSON, len(entries))
	for i, e := range entries {
		views[i] = a.view(e)
	}
	if asJSON {
		return a.printJSON(views)
	}
	if len(views) == 0 {
		fmt.Fprintln(a.stdout, "no chats yet: acpmux-tui new [--dir DIR]... creates one")
		return nil
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tHARNESS\tSTATUS\tFOLDERS\tCWD")
	for _, v := range views {
		if v.Broken != "" {
			fmt.Fprintf(w, "%s\t\t\tbroken\t\t%s\n", v.ID, firstLine(v.Broken))
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", v.ID, v.Name, v.Harness, v.Status, len(v.AdditionalDirectories), v.Cwd)
	}
	return w.Flush()
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
	m, err := a.store.AddFolders(e.ID, dirs)
	if err != nil {
		return err
	}
	return a.printChat(sessions.Entry{ID: m.ID, Meta: m}, false)
}

func (a *app) removeFolders(ref string, dirs []string) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	m, err := a.store.RemoveFolders(e.ID, dirs)
	if err != nil {
		return err
	}
	return a.printChat(sessions.Entry{ID: m.ID, Meta: m}, false)
}

// derive makes a fork, side chat or handoff of a chat; it carries the
// parent's folders. An ACP fork asks the agent for session/fork at its
// first start.
func (a *app) derive(ref string, d sessions.Derivation, asJSON bool) error {
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
		if _, err := sessions.Canonical(d.Cwd); err != nil {
			return usagef("--cwd %q: %v", d.Cwd, err)
		}
	}
	m, err := a.store.Derive(e.ID, d)
	if err != nil {
		return err
	}
	return a.printChat(sessions.Entry{ID: m.ID, Meta: m}, asJSON)
}

func (a *app) remove(ref string, force bool) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	if err := a.store.Remove(e.ID, force); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "removed", e.ID)
	return nil
}

// logger opens the log file in the agent home; the log is where harness
// stderr and mux events go, never the terminal a harness draws on.
func (a *app) logger() (*slog.Logger, func(), error) {
	path := a.paths.Log()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, nil)), func() { f.Close() }, nil
}

func (a *app) newMux() (*mux.Mux, func(), error) {
	log, closeLog, err := a.logger()
	if err != nil {
		return nil, nil, err
	}
	m := mux.New(mux.Options{Store: a.store, Table: a.table, Config: a.cfg, Logger: log, Getenv: a.getenv})
	return m, func() { m.Close(); closeLog() }, nil
}

func (a *app) attach(ref string) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	if e.Broken != nil {
		return e.Broken
	}
	if spec, ok := a.table.Get(e.Meta.Harness); ok && spec.Transport == harness.TransportACP {
		return usagef("chat %s runs %s, which speaks ACP: use acpmux-tui prompt, or the TUI", e.ID, e.Meta.Harness)
	}
	m, done, err := a.newMux()
	if err != nil {
		return err
	}
	defer done()
	how, err := m.Attach(e.ID, os.Stdin, os.Stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "\r\n[acpmux-tui: %s %s]\r\n", e.ID, how)
	return nil
}

// prompt runs one ACP turn from the command line: the reply streams to
// stdout as plain text, permission requests are refused (each is printed on
// stderr), and ctrl+c cancels the turn.
func (a *app) prompt(ref, text string) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	if e.Broken != nil {
		return e.Broken
	}
	if spec, ok := a.table.Get(e.Meta.Harness); !ok || spec.Transport != harness.TransportACP {
		return usagef("chat %s runs %s, which does not speak ACP; use attach", e.ID, e.Meta.Harness)
	}
	m, done, err := a.newMux()
	if err != nil {
		return err
	}
	defer done()
	if err := m.SetPermissionPolicy(e.ID, func(p mux.Permission) string {
		fmt.Fprintf(a.stderr, "acpmux-tui: refused permission for %s\n", p.Title)
		return mux.RefuseAll(p)
	}); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Set the session up first: a loaded session replays the conversation,
	// and only this turn's reply is printed.
	if err := m.WaitReady(ctx, e.ID); err != nil {
		return err
	}
	var endsWithNewline atomic.Bool
	endsWithNewline.Store(true)
	_ = m.Observe(e.ID, func(entry mux.Entry) {
		if entry.Kind == mux.EntryAgent && entry.Text != "" {
			io.WriteString(a.stdout, entry.Text)
			endsWithNewline.Store(strings.HasSuffix(entry.Text, "\n"))
		}
	})
	go func() {
		<-ctx.Done()
		_ = m.Cancel(e.ID)
	}()
	reason, err := m.Prompt(context.Background(), e.ID, text)
	if !endsWithNewline.Load() {
		fmt.Fprintln(a.stdout)
	}
	if err != nil {
		return err
	}
	if reason != "end_turn" {
		fmt.Fprintf(a.stderr, "acpmux-tui: turn ended: %s\n", reason)
	}
	return nil
}

func (a *app) harnesses() error {
	if err := a.open(); err != nil {
		return err
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tTRANSPORT\tKIND\tCOMMAND\tFOLDERS VIA\tINSTALLED")
	for _, s := range a.table.All() {
		cmd := strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
		found := "no"
		if path, err := s.ResolveCommand(a.getenv); err == nil {
			found = path
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Transport, s.Kind, cmd, s.FoldersVia(1, nil), found)
	}
	return w.Flush()
}
