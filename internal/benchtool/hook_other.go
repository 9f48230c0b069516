//go:build !linux

package main

import "errors"

// listenFull is Linux's: darwin's socket(2) takes neither SOCK_NONBLOCK nor
// SOCK_CLOEXEC, and the hook rows are measured on Linux only.
func listenFull(string) (func(), error) {
	return nil, errors.New("the full-queue server of the hook rows is built on Linux only")
}
