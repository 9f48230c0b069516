// Package sandboxearly runs `acpmux-tui _sandbox SPEC`, the wrapper a
// sandboxed chat's harness is started through (package sandbox), from its
// init: it applies the bound and execs the harness before the slow inits
// of the TUI's packages run, so a sandboxed start costs little more than
// an exec. It imports only package sandbox, which imports nothing of ours.
//
// main imports it for this side effect only. Exiting from an init is an
// exception to "nothing below main exits", made for speed (as hookearly).
package sandboxearly

import (
	"os"

	"github.com/acpmux/acpmux-tui/sandbox"
)

func init() {
	if len(os.Args) >= 2 && os.Args[1] == sandbox.Command {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
}
