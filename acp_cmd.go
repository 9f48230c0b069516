package main

import (
	"fmt"
	"net"
	"os"

	"github.com/acpmux/acpmux-tui/acp"
	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// cmdACP is `acpmux-tui acp [--harness NAME]`: an ACP agent on stdin and
// stdout, backed by the agent home's server (started in the background
// when none answers, as the TUI starts it).
func cmdACP(a *app, args []string) error {
	fs := newFlags(a, "acp")
	name := fs.String("harness", "", "the ACP harness new chats get (default: default_acp_harness, else the first ACP harness installed)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui acp [--harness NAME]")
	}
	return a.acp(*name)
}

// acp runs the door on stdio. Nothing but protocol lines reaches stdout;
// what the door does goes to the log. --harness is checked against the
// table the server has in effect (read again just then), not a read of
// the file here: a harness added a moment ago is known.
func (a *app) acp(name string) error {
	if err := a.openServerClient(); err != nil {
		return err
	}
	logger, closeLog, err := a.logger()
	if err != nil {
		return err
	}
	defer closeLog()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find acpmux-tui's own binary to start the server: %w", err)
	}
	conn, cfg, err := a.harnessesNow()
	if err != nil {
		return err
	}
	if err := checkDoorHarness(cfg, name); err != nil {
		if conn != nil {
			conn.Close()
		}
		return err
	}
	if conn == nil {
		if conn, err = client.EnsureServer(a.store.Home(), exe); err != nil {
			return err
		}
	}
	// That connection has spoken _acpmux/*: the door needs a fresh one
	// whose first call is initialize (or the hand-over).
	conn.Close()
	dial := func() (net.Conn, error) {
		sc, err := net.Dial("unix", proto.SocketPath(a.store.Home()))
		if err != nil {
			return nil, fmt.Errorf("connect to the server of %s: %w", a.store.Home(), err)
		}
		return sc, nil
	}
	sc, err := dial()
	if err != nil {
		return err
	}
	if out, ok := a.stdout.(*os.File); ok && out == os.Stdout {
		open, handed, err := doorHandOver(sc.(*net.UnixConn), name)
		if err != nil {
			sc.Close()
			return fmt.Errorf("hand the ACP client to the server: %w", err)
		}
		if handed {
			logger.Info("ACP door open on stdio, handed to the server", "harness", name, "pid", os.Getpid())
			defer sc.Close()
			err := awaitHandedDoor(sc.(*net.UnixConn), open, a.stdout, logger)
			if err != nil {
				logger.Warn("ACP door closed", "err", err)
			}
			return err
		}
		// A server older than the hand-over: this process copies.
		sc.Close()
		if sc, err = dial(); err != nil {
			return err
		}
	}
	logger.Info("ACP door open on stdio", "harness", name, "pid", os.Getpid())
	err = acp.Bridge(os.Stdin, a.stdout, sc, acp.BridgeOptions{Harness: name, Logger: logger})
	if err != nil {
		logger.Warn("ACP door closed", "err", err)
	}
	return err
}

// checkDoorHarness refuses an --harness that the table in effect does not
// name, or that runs in a terminal.
func checkDoorHarness(cfg proto.ConfigResult, name string) error {
	if name == "" {
		return nil
	}
	h, ok := cfg.Harness(name)
	if !ok {
		return usagef("--harness %q: no such harness (try acpmux-tui harnesses)", name)
	}
	if h.Transport != harness.TransportACP {
		return usagef("--harness %q runs in a terminal; acpmux-tui acp needs an ACP harness", name)
	}
	return nil
}
