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
// what the door does goes to the log.
func (a *app) acp(name string) error {
	if err := a.open(); err != nil {
		return err
	}
	if name != "" {
		spec, ok := a.table.Get(name)
		if !ok {
			return usagef("--harness %q: no such harness (try acpmux-tui harnesses)", name)
		}
		if spec.Transport != harness.TransportACP {
			return usagef("--harness %q runs in a terminal; acpmux-tui acp needs an ACP harness", name)
		}
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
	conn, err := client.EnsureServer(a.store.Home(), exe)
	if err != nil {
		return err
	}
	// That connection has spoken _acpmux/hello: the door needs a fresh one
	// whose first call is initialize.
	conn.Close()
	sc, err := net.Dial("unix", proto.SocketPath(a.store.Home()))
	if err != nil {
		return fmt.Errorf("connect to the server of %s: %w", a.store.Home(), err)
	}
	logger.Info("ACP door open on stdio", "harness", name, "pid", os.Getpid())
	err = acp.Bridge(os.Stdin, a.stdout, sc, acp.BridgeOptions{Harness: name, Logger: logger})
	if err != nil {
		logger.Warn("ACP door closed", "err", err)
	}
	return err
}
