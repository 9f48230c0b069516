package mux

import "syscall"

// setPdeathsig has the kernel send sig to the process started with attr
// when the thread that forked it exits (see forkThread).
func setPdeathsig(attr *syscall.SysProcAttr, sig syscall.Signal) bool {
	attr.Pdeathsig = sig
	return true
}
