package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// openRequestsFile is the file the server keeps a handed-over door's open
// requests in: a memfd, in memory only, gone with its last descriptor.
func openRequestsFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("acpmux-door-open", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "door open requests"), nil
}
