package main

import (
	"fmt"
	"io"
	"os"

	"github.com/acpmux/acpmux-tui/internal/bundle"
	"github.com/acpmux/acpmux-tui/internal/transfer"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is `acpmux-tui import FILE|- --root DIR [--root DIR]... [--json]`:
// a bundle's chat added here under the guard.

// importBundle reads the bundle at file ("-" stdin) and prints the report.
func (a *app) importBundle(file string, roots []string, dryRun, asJSON bool) error {
	if err := a.open(); err != nil {
		return err
	}
	var r io.Reader = os.Stdin
	if file != "-" {
		f, err := os.Open(a.absPath(file))
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return usagef("import: %s is a folder, not a bundle", file)
		}
		r = f
	}
	rep, err := transfer.Import(r, transfer.ImportOptions{
		Chats: a.service(), Table: a.table, Getenv: a.getenv, Roots: roots, DryRun: dryRun, Limits: bundle.DefaultLimits,
	})
	if err != nil {
		return err
	}
	if asJSON {
		return a.printJSON(rep)
	}
	printImportReport(a.stdout, rep)
	return nil
}

// printImportReport prints what an import kept, dropped and why, and how
// the conversation came over.
func printImportReport(w io.Writer, rep proto.ImportReport) {
	if rep.DryRun {
		fmt.Fprintf(w, "would import chat %s as %q (%s) on host %s: a dry run, nothing written\n", rep.Parent, rep.Name, rep.Harness, rep.Host)
	} else {
		fmt.Fprintf(w, "imported chat %s as %s %q (%s) on host %s\n", rep.Parent, rep.ID, rep.Name, rep.Harness, rep.Host)
	}
	switch {
	case rep.CwdFresh && rep.Cwd != "":
		fmt.Fprintf(w, "folder: %s (a fresh home folder of its own: it had no project)\n", rep.Cwd)
	case rep.CwdFresh:
		fmt.Fprintf(w, "folder: a fresh home folder of its own (it had no project)\n")
	default:
		fmt.Fprintf(w, "folder: %s\n", rep.Cwd)
	}
	for _, d := range rep.Kept {
		fmt.Fprintf(w, "kept folder: %s\n", d)
	}
	for _, d := range rep.Dropped {
		fmt.Fprintf(w, "dropped folder: %s: %s\n", quoteLine(d.Path), d.Reason)
	}
	for _, f := range rep.KeptFiles {
		fmt.Fprintf(w, "kept file: %s\n", f)
	}
	for _, f := range rep.DroppedFiles {
		fmt.Fprintf(w, "dropped file: %s: %s\n", quoteLine(f.Path), f.Reason)
	}
	fmt.Fprintf(w, "conversation: %s: %s\n", rep.Conversation, rep.How)
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// quoteLine quotes a path from a bundle, escaping any control character.
func quoteLine(s string) string { return fmt.Sprintf("%+q", s) }
