//go:build !linux

package memtrim

// unmapBinary does nothing where /proc/self/smaps is not there.
func unmapBinary() (int64, error) { return 0, nil }
