package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// This file is harnesses: the harness table in effect, and which of its
// harnesses are installed.

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
