//go:build !linux

package main

import "os"

// openRequestsFile is the file the server keeps a handed-over door's open
// requests in: a temporary file, unlinked at once, so it is gone with its
// last descriptor.
func openRequestsFile() (*os.File, error) {
	f, err := os.CreateTemp("", "acpmux-door-open-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
