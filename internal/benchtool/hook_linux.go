package main

import (
	"fmt"
	"syscall"
)

// listenFull listens on socket and never accepts: its queue is filled
// at once, so a connect waits.
func listenFull(socket string) (func(), error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	fds := []int{fd}
	closeAll := func() {
		for _, f := range fds {
			syscall.Close(f)
		}
	}
	addr := &syscall.SockaddrUnix{Name: socket}
	if err := syscall.Bind(fd, addr); err != nil {
		closeAll()
		return nil, err
	}
	if err := syscall.Listen(fd, 0); err != nil {
		closeAll()
		return nil, err
	}
	for range 64 {
		c, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			closeAll()
			return nil, err
		}
		fds = append(fds, c)
		if err := syscall.Connect(c, addr); err == syscall.EAGAIN {
			return closeAll, nil
		} else if err != nil {
			closeAll()
			return nil, err
		}
	}
	closeAll()
	return nil, fmt.Errorf("the queue of %s did not fill", socket)
}
