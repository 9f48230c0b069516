//go:build !linux

package sandbox

import "errors"

// errNotLinux is every answer of the sandbox off Linux: Landlock, the mount
// namespace and the capability bounding set are Linux's, and there is
// nothing near enough elsewhere to bound a harness honestly, so a
// sandboxed chat is refused (fail closed), never run unbounded.
var errNotLinux = errors.New("Landlock is Linux's; sandboxed chats need Linux")

// ABI says there is no Landlock here.
func ABI() (int, error) { return 0, errNotLinux }

// Check refuses: no bound can hold off Linux.
func (b Bound) Check() error { return errNotLinux }

// Restrict refuses, and restricts nothing.
func (b Bound) Restrict() error { return errNotLinux }

// Prove refuses: nothing was restricted.
func (b Bound) Prove() error { return errNotLinux }

// run is the wrapper's refusal off Linux.
func run([]string) error { return errNotLinux }
