// Package lazyre holds regular expressions compiled on first use instead
// of at package initialisation: every process of the binary (the server,
// the TUI, each short command) runs every package's initialisation, so a
// package-level regexp.MustCompile costs all of them its compile time, its
// heap and the pages of its code, whether they use it or not.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call (panicking,
// as regexp.MustCompile does, if expr is not valid) and returns the same
// *regexp.Regexp on every call.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
