package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is --host NAME: the command runs against that host's server
// over ssh (client.DialHost), never against this machine's store. Every
// folder is the host's: sent as given, absolute, and validated by that
// host's server with the shared validator.

// hostCommands are the commands that take --host, each as it runs on a
// host.
var hostCommands = map[string]func(a *app, on *hostLink, args []string) error{
	"new":         hostNew,
	"ls":          hostLs,
	"show":        hostShow,
	"add-dir":     hostAddDir,
	"rm-dir":      hostRmDir,
	"rm":          hostRm,
	"fork":        hostFork,
	"side":        hostSide,
	"handoff":     hostHandoff,
	"attach":      hostAttach,
	"prompt":      hostPrompt,
	"kill-server": hostKillServer,
}

// takeHost finds --host NAME (or --host=NAME) in args and returns the
// name and the other arguments; found is false when there is none.
func takeHost(args []string) (name string, rest []string, found bool, err error) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		flag := strings.TrimLeft(arg, "-")
		switch {
		case arg != flag && (flag == "host"):
			if i+1 >= len(args) {
				return "", nil, true, usagef("flag needs an argument: --host")
			}
			name, found = args[i+1], true
			i++
		case arg != flag && strings.HasPrefix(flag, "host="):
			name, found = strings.TrimPrefix(flag, "host="), true
		default:
			rest = append(rest, arg)
		}
	}
	if found && name == "" {
		return "", nil, true, usagef("--host: empty host name")
	}
	return name, rest, found, nil
}

// hostLink is one command's connection to a host's server.
type hostLink struct {
	name string
	host client.Host
	conn *client.Conn
}

// runOnHostCommand runs command cmd with args against host name.
func runOnHostCommand(a *app, cmd, name string, args []string) error {
	if err := a.open(); err != nil {
		return err
	}
	hc, ok := a.cfg.Host[name]
	if !ok {
		known := strings.Join(a.cfg.HostNames(), ", ")
		if known == "" {
			known = "none configured"
		}
		return usagef("--host %q: no [host.%s] in the config (hosts: %s)", name, name, known)
	}
	h := client.Host{Name: name, HostConfig: hc}
	conn, err := client.DialHost(context.Background(), h)
	if err != nil {
		return err
	}
	defer conn.Close()
	return hostCommands[cmd](a, &hostLink{name: name, host: h, conn: conn}, args)
}

// call makes a call on the host, its errors as a Remote gives them (a
// folder refusal exits 2); a link that went down says so.
func (l *hostLink) call(method string, params, result any) error {
	err := l.conn.Call(context.Background(), method, params, result)
	if err == nil {
		return nil
	}
	select {
	case <-l.conn.Done():
		var rpc *client.RPCError
		if !errors.As(err, &rpc) {
			return client.LinkError(l.conn)
		}
	default:
	}
	return client.ServerError(err)
}

// resolve finds a chat on the host by id, exact name or unique prefix,
// as an ID argument is found here.
func (l *hostLink) resolve(ref string) (sessions.ChatJSON, error) {
	var list proto.ListResult
	if err := l.call(proto.MethodList, struct{}{}, &list); err != nil {
		return sessions.ChatJSON{}, err
	}
	var byID, byName, byPrefix []sessions.ChatJSON
	for _, c := range list.Chats {
		switch {
		case c.ID == ref:
			byID = append(byID, c)
		case c.Name == ref:
			byName = append(byName, c)
		case ref != "" && (strings.HasPrefix(c.ID, ref) || strings.HasPrefix(c.Name, ref)):
			byPrefix = append(byPrefix, c)
		}
	}
	for _, set := range [][]sessions.ChatJSON{byID, byName, byPrefix} {
		switch len(set) {
		case 0:
		case 1:
			return set[0], nil
		default:
			ids := make([]string, len(set))
			for i, c := range set {
				ids[i] = c.ID
			}
			return sessions.ChatJSON{}, fmt.Errorf("find chat %q on host %s: it matches %s", ref, l.name, strings.Join(ids, ", "))
		}
	}
	return sessions.ChatJSON{}, fmt.Errorf("find chat %q on host %s: %w", ref, l.name, sessions.ErrNotFound)
}

// hostPaths checks the folders given for a host: absolute, as the host
// has them. A relative path or ~ is this machine's, so it is refused.
func (l *hostLink) hostPaths(flag string, paths []string) error {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return usagef("%s %q: a folder on host %s must be an absolute path (a relative or ~ path is this machine's)", flag, p, l.name)
		}
	}
	return nil
}

// printChat prints a chat the host answered, as show does.
func (l *hostLink) printChat(a *app, v sessions.ChatJSON, asJSON bool) error {
	if asJSON {
		return a.printJSON(v)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(w, "%s\t%s\n", k, plaintext.Line(v)) }
	row("id", v.ID)
	row("host", l.name)
	if v.Broken != "" {
		row("broken", v.Broken)
		return w.Flush()
	}
	row("name", v.Name)
	row("harness", v.Harness)
	cwd := v.Cwd
	if v.NoProject {
		cwd += "  (no project: the chat's own folder)"
	}
	row("cwd", cwd)
	if len(v.AdditionalDirectories) == 0 {
		row("folders", "(none)")
	}
	for i, d := range v.AdditionalDirectories {
		label := ""
		if i == 0 {
			label = "folders"
		}
		row(label, d)
	}
	if len(v.AdditionalFiles) > 0 {
		row("files", strings.Join(v.AdditionalFiles, "\n"))
	}
	row("folders via", v.FoldersVia)
	if v.Origin != "" {
		row("origin", v.Origin+" of "+v.Parent)
	}
	if v.AgentSessionID != "" {
		row("agent session", v.AgentSessionID)
	}
	row("status", v.Status)
	row("created", v.Created)
	return w.Flush()
}

func hostNew(a *app, on *hostLink, args []string) error {
	fs := newFlags(a, "new")
	var cf chatFlags
	cf.register(fs)
	fs.String("host", "", "run against this host's server")
	asJSON := fs.Bool("json", false, "print the chat as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("new: unexpected argument %q", pos[0])
	}
	if err := on.hostPaths("--dir", cf.dirs); err != nil {
		return err
	}
	if err := on.hostPaths("--file", cf.files); err != nil {
		return err
	}
	if cf.cwd != "" {
		if err := on.hostPaths("--cwd", []string{cf.cwd}); err != nil {
			return err
		}
	}
	var chat sessions.ChatJSON
	p := proto.NewParams{Harness: cf.harness, Cwd: cf.cwd, AdditionalDirectories: cf.dirs, AdditionalFiles: cf.files, Name: cf.name}
	if err := on.call(proto.MethodNew, p, &chat); err != nil {
		return err
	}
	return on.printChat(a, chat, *asJSON)
}

func hostLs(a *app, on *hostLink, args []string) error {
	fs := newFlags(a, "ls")
	fs.String("host", "", "run against this host's server")
	asJSON := fs.Bool("json", false, "print an array of chats as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("ls: unexpected argument %q", pos[0])
	}
	var list proto.ListResult
	if err := on.call(proto.MethodList, struct{}{}, &list); err != nil {
		return err
	}
	if list.Chats == nil {
		list.Chats = []sessions.ChatJSON{}
	}
	return a.printViews(list.Chats, *asJSON)
}

// oneChat parses `CMD ID [--json]` and finds the chat.
func (l *hostLink) oneChat(a *app, name string, args []string) (sessions.ChatJSON, bool, error) {
	fs := newFlags(a, name)
	fs.String("host", "", "run against this host's server")
	asJSON := fs.Bool("json", false, "print the chat as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return sessions.ChatJSON{}, false, err
	}
	if len(pos) != 1 {
		return sessions.ChatJSON{}, false, usagef("usage: acpmux-tui %s ID [--json] --host NAME", name)
	}
	c, err := l.resolve(pos[0])
	return c, *asJSON, err
}

func hostShow(a *app, on *hostLink, args []string) error {
	c, asJSON, err := on.oneChat(a, "show", args)
	if err != nil {
		return err
	}
	return on.printChat(a, c, asJSON)
}

func hostAddDir(a *app, on *hostLink, args []string) error {
	return on.folders(a, "add-dir", proto.MethodAddFolders, args)
}

func hostRmDir(a *app, on *hostLink, args []string) error {
	return on.folders(a, "rm-dir", proto.MethodRemoveFolders, args)
}

func (l *hostLink) folders(a *app, name, method string, args []string) error {
	fs := newFlags(a, name)
	fs.String("host", "", "run against this host's server")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("usage: acpmux-tui %s ID DIR... --host NAME", name)
	}
	if method == proto.MethodAddFolders {
		if err := l.hostPaths(name, pos[1:]); err != nil {
			return err
		}
	}
	c, err := l.resolve(pos[0])
	if err != nil {
		return err
	}
	var chat sessions.ChatJSON
	if err := l.call(method, proto.FoldersParams{ID: c.ID, AdditionalDirectories: pos[1:]}, &chat); err != nil {
		return err
	}
	return l.printChat(a, chat, false)
}

func hostRm(a *app, on *hostLink, args []string) error {
	fs := newFlags(a, "rm")
	fs.String("host", "", "run against this host's server")
	force := fs.Bool("force", false, "also delete a home folder that has files in it")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui rm ID [--force] --host NAME")
	}
	c, err := on.resolve(pos[0])
	if err != nil {
		return err
	}
	var rep proto.RemoveReport
	if err := on.call(proto.MethodRemove, proto.RemoveParams{ID: c.ID, Force: *force}, &rep); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "removed", c.ID)
	return nil
}

// derive makes a fork, side chat or handoff on the host: it stays there.
func (l *hostLink) derive(a *app, name string, args []string, origin string) error {
	fs := newFlags(a, name)
	fs.String("host", "", "run against this host's server")
	asJSON := fs.Bool("json", false, "print the new chat as JSON")
	var cwd, to *string
	switch origin {
	case sessions.OriginFork:
		cwd = fs.String("cwd", "", "the fork's project folder on the host (default: the parent's)")
	case sessions.OriginHandoff:
		to = fs.String("to", "", "the harness to hand the chat to")
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || to != nil && *to == "" {
		return usagef("usage: acpmux-tui %s ID [--json] --host NAME", name)
	}
	p := proto.DeriveParams{Origin: origin}
	if cwd != nil && *cwd != "" {
		if err := l.hostPaths("--cwd", []string{*cwd}); err != nil {
			return err
		}
		p.Cwd = *cwd
	}
	if to != nil {
		p.Harness = *to
	}
	c, err := l.resolve(pos[0])
	if err != nil {
		return err
	}
	p.ID = c.ID
	var chat sessions.ChatJSON
	if err := l.call(proto.MethodDerive, p, &chat); err != nil {
		return err
	}
	return l.printChat(a, chat, *asJSON)
}

func hostFork(a *app, on *hostLink, args []string) error {
	return on.derive(a, "fork", args, sessions.OriginFork)
}

func hostSide(a *app, on *hostLink, args []string) error {
	return on.derive(a, "side", args, sessions.OriginSide)
}

func hostHandoff(a *app, on *hostLink, args []string) error {
	return on.derive(a, "handoff", args, sessions.OriginHandoff)
}

func hostAttach(a *app, on *hostLink, args []string) error {
	fs := newFlags(a, "attach")
	fs.String("host", "", "run against this host's server")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui attach ID --host NAME")
	}
	c, err := on.resolve(pos[0])
	if err != nil {
		return err
	}
	// A link that drops is dialed again: the chat runs on over there.
	dial := func(ctx context.Context) (*client.Conn, error) { return client.DialHost(ctx, on.host) }
	notice := func(line string) { fmt.Fprintf(a.stderr, "\r\n[acpmux-tui: %s]\r\n", line) }
	how, err := client.AttachFollow(on.conn, dial, c.ID, os.Stdin, os.Stdout, notice)
	if se, ok := err.(*client.SignalError); ok {
		fmt.Fprintf(a.stderr, "\r\n[acpmux-tui: %s on %s: %v]\r\n", c.ID, on.name, se.Signal)
		endBySignal(se.Signal)
		return err
	}
	if err != nil {
		return client.ServerError(err)
	}
	fmt.Fprintf(a.stderr, "\r\n[acpmux-tui: %s on %s %s]\r\n", c.ID, on.name, how)
	return nil
}

func hostPrompt(a *app, on *hostLink, args []string) error {
	fs := newFlags(a, "prompt")
	fs.String("host", "", "run against this host's server")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("usage: acpmux-tui prompt ID TEXT --host NAME")
	}
	c, err := on.resolve(pos[0])
	if err != nil {
		return err
	}
	return a.promptOn(on.conn, c.ID, strings.Join(pos[1:], " "))
}

func hostKillServer(a *app, on *hostLink, args []string) error {
	fs := newFlags(a, "kill-server")
	fs.String("host", "", "run against this host's server")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui kill-server --host NAME")
	}
	var k proto.KillResult
	if err := on.call(proto.MethodKill, struct{}{}, &k); err != nil {
		return fmt.Errorf("kill-server on host %s: %w", on.name, err)
	}
	// The server stops its harnesses, then ends, and the link with it.
	<-on.conn.Done()
	return nil
}
