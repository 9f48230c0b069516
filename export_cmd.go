package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/transfer"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is `acpmux-tui export ID [-o FILE|-]`: one chat's bundle, with
// its conversation as a running server holds it now.

// export writes the chat's bundle to out ("" the default name in the
// current folder, "-" stdout) and prints the report: on stdout, or on
// stderr when the bundle goes to stdout.
func (a *app) export(ref, out string) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	if e.Broken != nil {
		return fmt.Errorf("export chat %s: %w (the file is left as it is: fix or move it by hand)", e.ID, e.Broken)
	}
	opt := transfer.ExportOptions{Store: a.store, Table: a.table, Getenv: a.getenv, Version: version}
	if entries, lines, running, ok := client.Snapshot(a.store.Home(), e.ID); ok {
		opt.Live = &transfer.Live{Transcript: entries, Lines: lines, TurnRunning: running}
	}
	var rep proto.ExportReport
	w := a.stdout
	switch out {
	case "-":
		rep, err = transfer.Export(a.stdout, e.Meta, opt)
		rep.Path = "-"
		w = a.stderr
	case "":
		wd, werr := os.Getwd()
		if werr != nil {
			return fmt.Errorf("export chat %s: %w", e.ID, werr)
		}
		rep, err = transfer.ExportFile(filepath.Join(wd, transfer.DefaultFileName(e.Meta)), e.Meta, opt)
	default:
		rep, err = transfer.ExportFile(a.absPath(out), e.Meta, opt)
	}
	if err != nil {
		return err
	}
	printExportReport(w, a.stderr, rep)
	return nil
}

// printExportReport prints what an export wrote on w; that the work in
// the chat's worktree stays behind is a warning, on warn.
func printExportReport(w, warn io.Writer, rep proto.ExportReport) {
	where := rep.Path
	if where == "-" {
		where = "stdout"
	}
	fmt.Fprintf(w, "exported chat %s %q to %s (%d bytes) on host %s\n", rep.ID, rep.Name, where, rep.Bytes, rep.Host)
	conv := rep.Conversation
	if rep.Source != "" {
		conv += " (" + rep.Source + ")"
	}
	fmt.Fprintf(w, "conversation: %s\n", conv)
	for _, n := range rep.Notes {
		if strings.HasPrefix(n, transfer.NoteWorkStaysBehind) {
			fmt.Fprintf(warn, "acpmux-tui: warning: %s\n", n)
			continue
		}
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
