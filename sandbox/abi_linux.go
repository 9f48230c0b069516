package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ABI returns the Landlock ABI version in use (the kernel's, capped by
// EnvMaxABI), or why there is none.
func ABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if s := os.Getenv(EnvMaxABI); s != "" && err == nil {
		max, perr := strconv.Atoi(s)
		switch {
		case perr != nil || max < 0:
			return 0, fmt.Errorf("landlock: %s=%q is not a version", EnvMaxABI, s)
		case max == 0:
			return 0, fmt.Errorf("landlock: none (%s=0; the kernel offers ABI %d)", EnvMaxABI, v)
		case max < v:
			v = max
		}
	}
	switch {
	case errors.Is(err, unix.ENOSYS):
		return 0, fmt.Errorf("landlock: the kernel was built without Landlock: %w", err)
	case errors.Is(err, unix.EOPNOTSUPP):
		return 0, fmt.Errorf("landlock: disabled at boot (not in the lsm= list): %w", err)
	case err != nil:
		return 0, fmt.Errorf("landlock: ask the ABI version: %w", err)
	case v < 1:
		return 0, fmt.Errorf("landlock: the kernel reports ABI %d", v)
	}
	return v, nil
}
