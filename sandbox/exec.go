package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
)

// Command is the hidden first argument that makes our own binary the
// wrapper: `acpmux-tui _sandbox SPEC`, where SPEC is a Launch in JSON. The
// server starts a sandboxed chat's harness through it (Wrap), so that the
// server itself is never restricted.
const Command = "_sandbox"

// ExitRefused is the wrapper's exit status when it refused to run the
// harness (the bound could not be applied or proven); the reason is the
// last line on its standard error, after RefusedPrefix.
const ExitRefused = 126

// RefusedPrefix starts the line the wrapper writes when it refuses.
const RefusedPrefix = "acpmux-tui: sandbox: "

// Launch is what the wrapper receives: the bound, and the program to exec
// inside it with its full argument vector (Argv[0] as the program sees it).
// The environment is the wrapper's own, passed on whole.
type Launch struct {
	Bound Bound    `json:"bound"`
	Path  string   `json:"path"`
	Argv  []string `json:"argv"`
}

// Wrap returns the program and argument vector that run path with argv
// inside b: self (our own binary) with Command and the launch in JSON.
func Wrap(self string, b Bound, path string, argv []string) (string, []string, error) {
	spec, err := json.Marshal(Launch{Bound: b, Path: path, Argv: argv})
	if err != nil {
		return "", nil, err
	}
	return self, []string{self, Command, string(spec)}, nil
}

// Main runs the wrapper for the arguments that follow Command: it applies
// the bound and execs the harness, or writes why not and returns
// ExitRefused. It returns only on failure.
func Main(args []string) int {
	err := run(args)
	fmt.Fprintln(os.Stderr, RefusedPrefix+err.Error())
	return ExitRefused
}
