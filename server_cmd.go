package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/server"
	"golang.org/x/sys/unix"
)

// killServerTimeout bounds how long kill-server waits for the server to
// stop its harnesses (each has a grace period before SIGKILL) and end.
const killServerTimeout = 2 * time.Minute

// cmdServer is `server`: the server in the foreground, until SIGTERM,
// SIGINT or SIGHUP (each stops every harness, then exits 0), kill-server,
// or idleness (no harness running, no client connected). --ready-fd is for
// clients that start it in the background: the server writes "ready" (or
// "error: why") on that descriptor once it listens (or cannot).
func cmdServer(a *app, args []string) error {
	fs := newFlags(a, "server")
	readyFD := fs.Int("ready-fd", 0, "write \"ready\" to this descriptor once listening (used by clients that start the server)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui server")
	}
	var ready *os.File
	if *readyFD > 2 {
		// Never inherited by a harness, whatever happens next.
		unix.CloseOnExec(*readyFD)
		ready = os.NewFile(uintptr(*readyFD), "ready")
	}
	tell := func(line string) {
		if ready != nil {
			fmt.Fprintln(ready, line)
			ready.Close()
			ready = nil
		}
	}
	err = a.serve(func() { tell("ready") })
	if err != nil {
		tell("error: " + err.Error())
	}
	return err
}

// serve runs the server for the agent home until it ends.
func (a *app) serve(ready func()) error {
	if err := a.open(); err != nil {
		return err
	}
	if err := server.TightenHome(a.store.Home()); err != nil {
		return err
	}
	log, closeLog, err := a.logger()
	if err != nil {
		return err
	}
	defer closeLog()
	// Each harness is recorded as it starts and ends, and dies with the
	// server: the next server ends what might survive it and starts the
	// chats again.
	records := server.NewRecords(a.store.Home(), log)
	// Claude Code's hooks and Codex's notify program run this binary to
	// report their turns; chats that need their user are announced.
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program for the harnesses' hooks: %w", err)
	}
	needs := server.NewNeeds()
	// A harness's start or end, and a client's connection, are bursts of
	// the server's work that may not reach a collection: memtrim is told
	// of them.
	wake, stopTrim := trimMemory(log, "server")
	defer stopTrim()
	m := mux.New(mux.Options{
		Store: a.store, Table: a.table, Config: a.cfg, Logger: log, Getenv: a.getenv,
		Started:           func(id string, pid int) { records.Started(id, pid); wake() },
		Ended:             func(id string, respawning bool) { records.Ended(id, respawning); wake() },
		ParentDeathSignal: syscall.SIGKILL,
		NeedsUser:         needs.Heard, Self: self, Home: a.store.Home(),
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return server.Run(ctx, server.Options{
		Store: a.store, Table: a.table, Config: a.cfg, ConfigPath: a.paths.Config, Mux: m, Logger: log,
		Getenv: a.getenv, Version: version, Ready: ready, Records: records, Needs: needs,
		Connected: wake,
	})
}

// cmdKillServer is `kill-server`: the server stops every harness and ends;
// the chats' files stay. It returns once the server's process has gone.
// With no server running it says so and exits 1, as tmux does.
func cmdKillServer(a *app, args []string) error {
	fs := newFlags(a, "kill-server")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui kill-server [--host NAME]")
	}
	if *host != "" {
		return a.onHost(*host, func(on *hostLink) error { return on.kill() })
	}
	paths, err := config.ResolvePaths(a.getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), killServerTimeout)
	defer cancel()
	if _, err := client.KillServer(ctx, paths.Home); err != nil {
		if errors.Is(err, client.ErrNoServer) {
			return errors.New("no server running")
		}
		return fmt.Errorf("kill-server: %w", err)
	}
	return nil
}
