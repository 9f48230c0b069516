package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
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
