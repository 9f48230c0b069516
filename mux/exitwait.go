package mux

import "os/exec"

// waitPolled is cmd.Wait, but the wait for the process to end is done in
// the Go runtime's poller, on a pidfd, rather than in a thread: os/exec's
// Wait blocks an OS thread in waitid for the child's whole life, so each
// live harness cost the server a thread (its g0 and signal stacks, about
// 50 kB of anonymous memory, and a futex the scheduler juggles). Once the
// pidfd is readable the child has exited and Wait reaps it at once. Where
// pidfds cannot be polled (an old kernel) Wait blocks as it did.
func waitPolled(cmd *exec.Cmd) error {
	awaitExit(cmd.Process.Pid)
	return cmd.Wait()
}
