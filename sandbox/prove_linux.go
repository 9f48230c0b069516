package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Prove checks, after Restrict, that the bound holds: a file can be made in
// the first writable folder, one cannot be made outside every writable
// folder (EACCES), and no hidden folder can be opened for reading (EACCES).
// It returns an error saying which check failed. Canary files are removed.
func (b Bound) Prove() error {
	if len(b.Writable) == 0 {
		return errors.New("prove: the bound has no writable folder to write a canary in")
	}
	inside := b.Writable[0]
	if err := canary(inside); err != nil {
		return fmt.Errorf("prove: write inside %s: %w", inside, err)
	}
	outside := b.outside()
	switch err := canary(outside); {
	case err == nil:
		return fmt.Errorf("prove: a file could be made in %s, outside the bound", outside)
	case !errors.Is(err, unix.EACCES):
		return fmt.Errorf("prove: write outside in %s: want EACCES, got %w", outside, err)
	}
	if err := b.proveReadOnly(); err != nil {
		return err
	}
	for _, h := range b.Hidden {
		fd, err := unix.Open(h, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		switch {
		case err == nil:
			unix.Close(fd)
			return fmt.Errorf("prove: hidden folder %s could be opened", h)
		case errors.Is(err, unix.ENOENT):
		case !errors.Is(err, unix.EACCES):
			return fmt.Errorf("prove: read hidden %s: want EACCES, got %w", h, err)
		}
	}
	return nil
}

// outside returns a folder no writable folder covers: the nearest such
// ancestor of the first writable folder (in a test, its temporary folder),
// else "/".
func (b Bound) outside() string {
	d := filepath.Dir(b.Writable[0])
	for ; d != "/"; d = filepath.Dir(d) {
		covered := false
		for _, w := range b.Writable {
			if within(d, w) {
				covered = true
			}
		}
		if !covered {
			return d
		}
	}
	return d
}

// canary makes a new file in dir and removes it.
func canary(dir string) error {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	p := filepath.Join(dir, ".acpmux-canary-"+hex.EncodeToString(rnd[:]))
	fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	unix.Close(fd)
	if err := unix.Unlink(p); err != nil {
		return fmt.Errorf("remove canary %s: %w", p, err)
	}
	return nil
}
