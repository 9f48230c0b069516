package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// This file is version (and --version): the version and the git state the
// build recorded.

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
