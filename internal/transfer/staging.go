package transfer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// StagingDir is the folder inside the agent home where an import unpacks
// its bundle, one folder per import (<pid>-<random>, mode 0700), removed
// at the end whatever happens.
const StagingDir = "staging"

// newStaging makes a fresh staging folder for this import, first removing
// the ones left by imports whose process has gone (killed mid-way). It
// returns the folder and what removes it.
func newStaging(home string) (string, func(), error) {
	parent := filepath.Join(home, StagingDir)
	if err := os.Mkdir(parent, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", nil, fmt.Errorf("make the staging folder: %w", err)
	}
	fi, err := os.Lstat(parent)
	if err != nil {
		return "", nil, fmt.Errorf("make the staging folder: %w", err)
	}
	if !fi.IsDir() {
		return "", nil, fmt.Errorf("make the staging folder: %s is not a folder (a link is never followed)", parent)
	}
	removeStale(parent)
	dir, err := os.MkdirTemp(parent, strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", nil, fmt.Errorf("make the staging folder: %w", err)
	}
	return dir, func() {
		os.RemoveAll(dir)
		os.Remove(parent) // only if no other import uses it
	}, nil
}

// removeStale removes the staging folders of imports whose process no
// longer runs. Nothing else in the folder is touched.
func removeStale(parent string) {
	des, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, de := range des {
		pidText, _, ok := strings.Cut(de.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			os.RemoveAll(filepath.Join(parent, de.Name()))
		}
	}
}
