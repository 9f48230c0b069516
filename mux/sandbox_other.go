//go:build !linux

package mux

import (
	"syscall"

	"github.com/acpmux/acpmux-tui/harness"
)

// boundAttr is nil off Linux: a sandboxed chat never gets this far there
// (sandbox.Bound.Check refuses it: Landlock is Linux's), and the user
// namespace the Linux side starts the wrapper in is Linux's too.
func boundAttr(harness.Launch) *syscall.SysProcAttr { return nil }
