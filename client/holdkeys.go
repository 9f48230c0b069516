package client

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// HoldKeys turns the terminal in's echo, line editing and input
// translation off until release is called, which gives it back its
// settings as found (once; later calls do nothing). attach calls it first
// thing: a key typed while it starts (finding the chat, starting the
// server) is neither drawn by the terminal over the screen, as a cooked
// terminal echoes it, nor held for a newline, but waits in the terminal,
// as typed (enter a CR, ctrl+s a byte), for the chat, which reads it once
// the attachment begins. Signals (ctrl+c) and output processing stay as
// they were, so a slow start can be interrupted and an error said before
// then reads as ever. A descriptor that is not a terminal is left alone.
func HoldKeys(in *os.File) (release func()) {
	fd := int(in.Fd())
	saved, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return func() {}
	}
	held := *saved
	held.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.IEXTEN
	held.Iflag &^= unix.ICRNL | unix.INLCR | unix.IGNCR | unix.IXON
	held.Cc[unix.VMIN], held.Cc[unix.VTIME] = 1, 0
	// Set without a flush: what was typed stays in the terminal.
	if unix.IoctlSetTermios(fd, ioctlSetTermios, &held) != nil {
		return func() {}
	}
	var once sync.Once
	return func() {
		once.Do(func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, saved) })
	}
}
