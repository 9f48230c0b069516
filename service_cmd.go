package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/service"
)

// This file is service: the systemd user units that let systemd own the
// server (socket activation), written, removed or reported by
// internal/service.

// cmdService is `service install|uninstall|status [--dry-run]`.
func cmdService(a *app, args []string) error {
	fs := newFlags(a, "service")
	dryRun := fs.Bool("dry-run", false, "print the unit files (or what uninstall removes) and change nothing")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui service install|uninstall|status [--dry-run]")
	}
	o, err := a.serviceOptions()
	if err != nil {
		return err
	}
	ctx := context.Background()
	switch pos[0] {
	case "install":
		return service.Install(ctx, o, *dryRun)
	case "uninstall":
		return service.Uninstall(ctx, o, *dryRun)
	case "status":
		return service.Status(ctx, o)
	}
	return usagef("service: unknown action %q (install, uninstall or status)", pos[0])
}

// serviceOptions are the units' settings from this binary and the
// environment: the agent home (named in the unit unless it is the
// default), ACPMUX_CONFIG when set, and this PATH, which the server's
// harnesses need (systemd's own is short).
func (a *app) serviceOptions() (service.Options, error) {
	paths, err := config.ResolvePaths(a.getenv)
	if err != nil {
		return service.Options{}, err
	}
	unset := func(k string) string {
		if k == "ACPMUX_HOME" || k == "ACPMUX_CONFIG" {
			return ""
		}
		return a.getenv(k)
	}
	defaults, err := config.ResolvePaths(unset)
	if err != nil {
		return service.Options{}, err
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return service.Options{}, fmt.Errorf("find this binary for ExecStart: %w", err)
	}
	dir, err := service.UnitDir(a.getenv)
	if err != nil {
		return service.Options{}, err
	}
	o := service.Options{
		Binary: exe, Home: paths.Home, DefaultHome: paths.Home == defaults.Home,
		Path: a.getenv("PATH"), UnitDir: dir, Out: a.stdout,
		Running: func() int {
			c, err := client.DialRunning(paths.Home)
			if err != nil {
				return 0
			}
			defer c.Close()
			h, err := c.Hello(context.Background())
			if err != nil {
				return 0
			}
			return h.Pid
		},
	}
	if paths.Config != defaults.Config {
		o.Config = paths.Config
	}
	if p, err := exec.LookPath("systemctl"); err == nil {
		o.Systemctl = p
	}
	if u, err := user.Current(); err == nil {
		o.User = u.Username
	}
	return o, nil
}
