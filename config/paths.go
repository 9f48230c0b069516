// Package config reads the config file and knows where acpmux-tui keeps
// things: the agent home, the config file and the log.
package config

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Paths are the places acpmux-tui reads and writes.
type Paths struct {
	// Home is the agent home: chats/, homes/ and logs/ live inside it.
	Home string
	// Config is the config file; it may not exist.
	Config string
}

// Log returns the log file inside the agent home.
func (p Paths) Log() string { return filepath.Join(p.Home, "logs", "acpmux-tui.log") }

// ResolvePaths works out the paths from the environment (getenv is os.Getenv
// outside tests): ACPMUX_HOME (absolute, else ErrRelativeHome), else $XDG_DATA_HOME/acpmux, else
// ~/.local/share/acpmux; ACPMUX_CONFIG, else $XDG_CONFIG_HOME/acpmux/config.toml,
// else ~/.config/acpmux/config.toml.
func ResolvePaths(getenv func(string) string) (Paths, error) {
	home, err := pick(getenv, "ACPMUX_HOME", "XDG_DATA_HOME", "acpmux", ".local/share/acpmux")
	if err != nil {
		return Paths{}, err
	}
	cfg, err := pick(getenv, "ACPMUX_CONFIG", "XDG_CONFIG_HOME", "acpmux/config.toml", ".config/acpmux/config.toml")
	if err != nil {
		return Paths{}, err
	}
	return Paths{Home: home, Config: cfg}, nil
}

// ErrRelativeHome is the refusal of an ACPMUX_HOME that is not an absolute
// path: the agent home is shared by the TUI, the commands and the server,
// which run from different folders, so a relative one would name a
// different home for each.
var ErrRelativeHome = errors.New("ACPMUX_HOME must be an absolute path")

func pick(getenv func(string) string, direct, xdg, xdgRel, homeRel string) (string, error) {
	if v := getenv(direct); v != "" {
		if direct == "ACPMUX_HOME" && !filepath.IsAbs(v) {
			return "", fmt.Errorf("%w: it is %q, which names another folder from each working directory (for example ACPMUX_HOME=\"$PWD/%s\")", ErrRelativeHome, v, filepath.Clean(v))
		}
		return absolute(direct, v)
	}
	if v := getenv(xdg); v != "" {
		// The XDG spec says relative values are invalid and to be ignored.
		if filepath.IsAbs(v) {
			return filepath.Join(v, xdgRel), nil
		}
	}
	h := getenv("HOME")
	if h == "" {
		return "", fmt.Errorf("cannot place %s: neither %s, %s nor HOME is set", direct, direct, xdg)
	}
	if !filepath.IsAbs(h) {
		return "", errors.New("HOME is not an absolute path")
	}
	return filepath.Join(h, homeRel), nil
}

func absolute(name, v string) (string, error) {
	a, err := filepath.Abs(v)
	if err != nil {
		return "", fmt.Errorf("%s=%q: %w", name, v, err)
	}
	return a, nil
}
