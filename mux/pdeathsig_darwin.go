package mux

import "syscall"

// setPdeathsig sets nothing: darwin has no parent-death signal. The
// server's harnesses end with its stop all the same (each group gets
// SIGTERM, then SIGKILL). A server killed with SIGKILL leaves them: a pty
// harness loses its terminal (SIGHUP), an ACP agent its stdin, and what
// outlives that stays, as the next server's clean-up of a dead one's
// harnesses (server/survivors.go) needs Linux's boot id and /proc.
func setPdeathsig(*syscall.SysProcAttr, syscall.Signal) bool { return false }
