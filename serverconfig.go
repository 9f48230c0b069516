package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the config as the server has it, for the commands that are
// its clients and name a harness (`acp --harness`, `prompt`): they check
// it against the table the server has in effect, read again just then, not
// against a read of their own. A harness added a moment ago is known, and
// a file refused since leaves the server's last good config in effect:
// the command says why on stderr and goes on with it. (A command that
// runs without a server, as `ls` and `show` do, reads the file itself,
// and asks a running server for its config only when the file is refused:
// openDespiteConfig.)

// openServerClient finds the agent home and opens its chat store, without
// reading the config file: what the server has in effect is asked of it
// (serverConfig).
func (a *app) openServerClient() error {
	if a.store != nil {
		return nil
	}
	paths, err := config.ResolvePaths(a.getenv)
	if err != nil {
		return err
	}
	store, err := sessions.OpenStore(paths.Home)
	if err != nil {
		return err
	}
	a.paths, a.store = paths, store
	return nil
}

// harnessesNow is the harness table in effect for a command that names a
// harness and runs in the server: the running server's (serverConfig),
// with conn the connection it was asked on; with no server running, this
// process's read of the file, and conn nil (the server started next reads
// the same file). A refusal with no server running is an error: no
// server will start with that file.
func (a *app) harnessesNow() (conn *client.Conn, cfg proto.ConfigResult, err error) {
	conn, err = client.DialRunning(a.store.Home())
	if errors.Is(err, client.ErrNoServer) {
		cfg, err = a.ownConfig()
		return nil, cfg, err
	}
	if err != nil {
		return nil, cfg, err
	}
	cfg, err = a.serverConfig(conn)
	if err != nil {
		conn.Close()
		return nil, cfg, err
	}
	return conn, cfg, nil
}

// serverConfig asks the server on conn to read its config file again and
// answers what it has in effect then; a refusal of the file is said on
// stderr. A server older than the call is answered from this process's
// own read of the file.
func (a *app) serverConfig(conn *client.Conn) (proto.ConfigResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), client.StartTimeout)
	defer cancel()
	var res proto.ConfigResult
	err := conn.Call(ctx, proto.MethodConfig, struct{}{}, &res)
	var rpc *client.RPCError
	if errors.As(err, &rpc) && rpc.Code == proto.CodeMethodNotFound {
		return a.ownConfig()
	}
	if err != nil {
		return res, fmt.Errorf("ask the server for its config: %w", err)
	}
	if res.Refused != "" {
		fmt.Fprintf(a.stderr, "acpmux-tui: %s\n", res.Refused)
	}
	return res, nil
}

// ownConfig is the harness table as this process reads the file.
func (a *app) ownConfig() (proto.ConfigResult, error) {
	cfg, table, err := harness.Load(a.paths.Config)
	if err != nil {
		return proto.ConfigResult{}, err
	}
	var res proto.ConfigResult
	for _, s := range table.All() {
		res.Harnesses = append(res.Harnesses, proto.HarnessInfo{Name: s.Name, Transport: s.Transport, Kind: s.Kind, Command: s.Command, Sandbox: s.Sandboxed(cfg)})
	}
	return res, nil
}

// openDespiteConfig is open for the commands that read chats or remove one
// (ls, show, rm): a config file that does not read does not stop them, as
// a typo there should not hide the chats. They say why on stderr (the
// file, the line and the key, as the one reader words it) and go on with
// the config the running server has in effect, its last good one, or with
// no server the built-in defaults. The commands that start harnesses
// still refuse the file (open): what they start would not be what it says.
func (a *app) openDespiteConfig() error { return a.load(true) }

// configDespite is the config and harness table a command goes on with
// past refused, the file's refusal: the last good config of the server
// running on home, else the built-in defaults; which one is said on stderr
// with why.
func (a *app) configDespite(home string, refused error) (*config.Config, *harness.Table) {
	if res, ok := runningServerConfig(home); ok {
		fmt.Fprintf(a.stderr, "acpmux-tui: warning: %v; going on with the last good config the server holds\n", refused)
		return configOfResult(res)
	}
	fmt.Fprintf(a.stderr, "acpmux-tui: warning: %v; going on with the built-in defaults\n", refused)
	cfg := config.Defaults()
	table, err := harness.NewTable(cfg)
	if err != nil {
		// The defaults always make a table; an empty one shows the chats
		// all the same.
		table = harness.TableOf(nil)
	}
	return cfg, table
}

// runningServerConfig asks the server running on home, if one runs (none
// is started), for the config it has in effect; ok is false when none
// answers.
func runningServerConfig(home string) (res proto.ConfigResult, ok bool) {
	conn, err := client.DialRunning(home)
	if err != nil {
		return res, false
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), client.LiveTimeout)
	defer cancel()
	if err := conn.Call(ctx, proto.MethodConfig, struct{}{}, &res); err != nil {
		return res, false
	}
	return res, true
}

// configOfResult is the config and harness table a server's answer
// describes: its harnesses (how each is started and takes folders), its
// default harness, its worktree default and its hosts; the rest is the
// built-in defaults, which a command that only reads chats does not use.
func configOfResult(res proto.ConfigResult) (*config.Config, *harness.Table) {
	cfg := config.Defaults()
	cfg.DefaultHarness, cfg.Worktree.Default = res.DefaultHarness, res.Worktree
	if len(res.Hosts) > 0 {
		cfg.Host = make(map[string]config.HostConfig, len(res.Hosts))
	}
	for _, h := range res.Hosts {
		cfg.Host[h.Name] = config.HostConfig{SSH: h.SSH, SSHOptions: h.SSHOptions, Home: h.Home, Command: h.Command, Budget: h.Budget}
	}
	specs := make([]harness.Spec, 0, len(res.Harnesses))
	for _, h := range res.Harnesses {
		specs = append(specs, harness.Spec{Name: h.Name, Command: h.Command, Kind: h.Kind, Transport: h.Transport,
			FolderFlag: h.FolderFlag, AdvertisesFolders: h.AdvertisesFolders})
	}
	return cfg, harness.TableOf(specs)
}
