package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestUsageLinesNameEveryFlag: each command's usage line (the command
// table's, which `help` and `COMMAND --help` print) names every flag the
// command takes, so nobody learns of --delete-branch or --base only by
// reading the flags below it.
func TestUsageLinesNameEveryFlag(t *testing.T) {
	for _, c := range commands() {
		var out, errOut bytes.Buffer
		if code := run([]string{c.name, "--help"}, &out, &errOut); code != 0 {
			t.Errorf("%s --help: exit %d\n%s%s", c.name, code, out.String(), errOut.String())
			continue
		}
		text := out.String() + errOut.String()
		_, flags, ok := strings.Cut(text, "\nflags:\n")
		if !ok {
			continue // a command with no flags
		}
		for _, line := range strings.Split(flags, "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || !strings.HasPrefix(f[0], "-") {
				continue
			}
			if !strings.Contains(" "+c.args, f[0]) {
				t.Errorf("acpmux-tui %s %s: the usage line does not name %s", c.name, c.args, f[0])
			}
		}
	}
}
