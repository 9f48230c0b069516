// Package service is `acpmux-tui service`: the systemd user units that let
// systemd own the server. acpmux-tui.socket binds the agent home's socket
// (mode 0600) and starts acpmux-tui.service, the server, on the first
// connection; the server serves the socket it is handed (server/listenfd.go)
// and ends when idle, and systemd starts it again on the next connection.
// With lingering on (loginctl enable-linger), the socket and the chats
// outlive the user's logout.
package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// The units' names.
const (
	ServiceUnit = "acpmux-tui.service"
	SocketUnit  = "acpmux-tui.socket"
)

// systemctlTimeout bounds each run of systemctl.
const systemctlTimeout = 30 * time.Second

// Options say what the units run and where they go.
type Options struct {
	// Binary is this acpmux-tui's absolute path: what ExecStart runs.
	Binary string
	// Home is the agent home; DefaultHome is set when it is the default
	// one (no ACPMUX_HOME), which the unit then leaves to the server.
	Home        string
	DefaultHome bool
	// Config is ACPMUX_CONFIG when it is set ("" otherwise).
	Config string
	// Path is the PATH the server (and every harness it starts) gets:
	// the installing shell's, as systemd's own is short.
	Path string
	// UnitDir is where user units go: $XDG_CONFIG_HOME/systemd/user, else
	// ~/.config/systemd/user.
	UnitDir string
	// Systemctl is systemctl's path, "" when it is not installed.
	Systemctl string
	// User is the login name (for lingering), "" when unknown.
	User string
	// Out hears what is done.
	Out io.Writer
	// Running, when set, reports the pid of a server that answers on the
	// socket now (0: none).
	Running func() int
}

// UnitDir is where the user units go for this environment.
func UnitDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "systemd", "user"), nil
	}
	h := getenv("HOME")
	if !filepath.IsAbs(h) {
		return "", errors.New("cannot place the user units: neither XDG_CONFIG_HOME nor HOME is an absolute path")
	}
	return filepath.Join(h, ".config", "systemd", "user"), nil
}

// Unit is one unit file: its name and text.
type Unit struct {
	Name, Text string
}

// Units are the two unit files for o, or why they cannot be written (a
// path systemd cannot take).
func Units(o Options) ([]Unit, error) {
	sock := proto.SocketPath(o.Home)
	if len(sock) > proto.MaxSunPath {
		return nil, fmt.Errorf("the socket path %s is longer than the %d bytes a socket unit can bind: choose a shorter ACPMUX_HOME", sock, proto.MaxSunPath)
	}
	for _, p := range []string{o.Binary, o.Home, o.Config} {
		if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return nil, fmt.Errorf("%q holds a control character, which a unit file cannot carry", p)
		}
	}
	if strings.ContainsAny(sock, " \t\\\"'") {
		return nil, fmt.Errorf("the socket path %q holds a blank, a quote or a backslash, which ListenStream= cannot take: choose another ACPMUX_HOME", sock)
	}
	var env strings.Builder
	if !o.DefaultHome {
		fmt.Fprintf(&env, "Environment=%s\n", quote("ACPMUX_HOME="+o.Home))
	}
	if o.Config != "" {
		fmt.Fprintf(&env, "Environment=%s\n", quote("ACPMUX_CONFIG="+o.Config))
	}
	if o.Path != "" {
		fmt.Fprintf(&env, "Environment=%s\n", quote("PATH="+o.Path))
	}
	service := fmt.Sprintf(`# Written by acpmux-tui service install: the acpmux-tui server of
# %[1]s, started by %[2]s on the first connection.
[Unit]
Description=acpmux-tui server (%[1]s)
Requires=%[2]s
After=%[2]s

[Service]
Type=simple
ExecStart=%[3]s server
%[4]s# SIGTERM goes to the server alone, which stops each harness in turn.
KillMode=mixed
Restart=on-failure
`, specifiers(o.Home), SocketUnit, execQuote(o.Binary), env.String())
	socket := fmt.Sprintf(`# Written by acpmux-tui service install: the socket of the acpmux-tui
# server of %[1]s; a connection to it starts %[2]s.
[Unit]
Description=acpmux-tui socket (%[1]s)

[Socket]
ListenStream=%[3]s
SocketMode=0600
DirectoryMode=0700

[Install]
WantedBy=sockets.target
`, specifiers(o.Home), ServiceUnit, specifiers(sock))
	return []Unit{{ServiceUnit, service}, {SocketUnit, socket}}, nil
}

// specifiers escapes systemd's specifiers (%h, %u…) in a value.
func specifiers(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// quote is a value of Environment=: in double quotes, with its quotes
// and backslashes escaped, specifiers too.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%")
	return `"` + r.Replace(s) + `"`
}

// execQuote is the program of ExecStart=: quoted as a value is, and its
// "$" doubled, as ExecStart= expands variables.
func execQuote(s string) string {
	return strings.ReplaceAll(quote(s), "$", "$$")
}

// Install writes the units (or, with dryRun, prints them and what it would
// run), then has systemd load them and listen on the socket, when
// systemctl is installed and the user's manager answers. A server that
// runs now, outside systemd, is left alone: the socket unit is enabled
// but not started, as starting it would take the socket's name from under
// that server.
func Install(ctx context.Context, o Options, dryRun bool) error {
	units, err := Units(o)
	if err != nil {
		return err
	}
	if dryRun {
		for _, u := range units {
			fmt.Fprintf(o.Out, "# %s\n%s\n", filepath.Join(o.UnitDir, u.Name), u.Text)
		}
		fmt.Fprintf(o.Out, "# then: systemctl --user daemon-reload && systemctl --user enable --now %s\n", SocketUnit)
		return nil
	}
	if err := os.MkdirAll(o.UnitDir, 0o755); err != nil {
		return fmt.Errorf("service install: %w", err)
	}
	for _, u := range units {
		path := filepath.Join(o.UnitDir, u.Name)
		if err := writeFile(path, []byte(u.Text)); err != nil {
			return fmt.Errorf("service install: write %s: %w", path, err)
		}
		fmt.Fprintf(o.Out, "wrote %s\n", path)
	}
	if !reachable(ctx, o) {
		fmt.Fprintf(o.Out, "once a user manager runs: systemctl --user daemon-reload && systemctl --user enable --now %s\n", SocketUnit)
		lingering(o)
		return nil
	}
	// A server found while systemd's socket is not active runs outside
	// systemd (asking while it is active would only start systemd's).
	running := 0
	if o.Running != nil && answer(ctx, o, "is-active", SocketUnit) != "active" {
		running = o.Running()
	}
	enable := []string{"enable", "--now", SocketUnit}
	if running > 0 {
		enable = []string{"enable", SocketUnit}
	}
	for _, args := range [][]string{{"daemon-reload"}, enable} {
		if err := systemctl(ctx, o, args...); err != nil {
			return fmt.Errorf("service install: %w", err)
		}
		fmt.Fprintf(o.Out, "ran systemctl --user %s\n", strings.Join(args, " "))
	}
	if running > 0 {
		fmt.Fprintf(o.Out, "a server runs now outside systemd (pid %d), so %s is enabled but not started: acpmux-tui kill-server, then systemctl --user start %s\n", running, SocketUnit, SocketUnit)
	} else {
		fmt.Fprintf(o.Out, "systemd listens on %s and starts the server on the first connection\n", proto.SocketPath(o.Home))
	}
	lingering(o)
	return nil
}

// Uninstall stops and disables the units (the server, if systemd runs it,
// stops every harness; the chats' files stay), removes their files and
// has systemd forget them. With dryRun it says what it would do.
func Uninstall(ctx context.Context, o Options, dryRun bool) error {
	paths := []string{filepath.Join(o.UnitDir, ServiceUnit), filepath.Join(o.UnitDir, SocketUnit)}
	stop := []string{"disable", "--now", SocketUnit, ServiceUnit}
	if dryRun {
		fmt.Fprintf(o.Out, "would run: systemctl --user %s\n", strings.Join(stop, " "))
		for _, p := range paths {
			fmt.Fprintf(o.Out, "would remove %s\n", p)
		}
		fmt.Fprintln(o.Out, "would run: systemctl --user daemon-reload")
		return nil
	}
	managed := reachable(ctx, o)
	if managed {
		if err := systemctl(ctx, o, stop...); err != nil {
			return fmt.Errorf("service uninstall: %w", err)
		}
		fmt.Fprintf(o.Out, "ran systemctl --user %s\n", strings.Join(stop, " "))
	}
	removed := 0
	for _, p := range paths {
		err := os.Remove(p)
		switch {
		case err == nil:
			removed++
			fmt.Fprintf(o.Out, "removed %s\n", p)
		case errors.Is(err, fs.ErrNotExist):
		default:
			return fmt.Errorf("service uninstall: %w", err)
		}
	}
	if removed == 0 {
		fmt.Fprintf(o.Out, "no unit files in %s\n", o.UnitDir)
	}
	if managed {
		if err := systemctl(ctx, o, "daemon-reload"); err != nil {
			return fmt.Errorf("service uninstall: %w", err)
		}
		fmt.Fprintln(o.Out, "ran systemctl --user daemon-reload")
	}
	return nil
}

// Status reports the unit files (there, and whether they are what install
// would write now) and, where systemd answers, whether each unit is
// active.
func Status(ctx context.Context, o Options) error {
	units, err := Units(o)
	if err != nil {
		return err
	}
	for _, u := range units {
		path := filepath.Join(o.UnitDir, u.Name)
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(o.Out, "%s: not installed (acpmux-tui service install)\n", path)
		case err != nil:
			fmt.Fprintf(o.Out, "%s: %v\n", path, err)
		case string(b) != u.Text:
			fmt.Fprintf(o.Out, "%s: installed, but not what install writes now (another binary, home or PATH): run acpmux-tui service install again\n", path)
		default:
			fmt.Fprintf(o.Out, "%s: installed\n", path)
		}
	}
	if !reachable(ctx, o) {
		return nil
	}
	for _, u := range []string{SocketUnit, ServiceUnit} {
		fmt.Fprintf(o.Out, "%s: %s\n", u, answer(ctx, o, "is-active", u))
	}
	fmt.Fprintf(o.Out, "%s at login: %s\n", SocketUnit, answer(ctx, o, "is-enabled", SocketUnit))
	return nil
}

// reachable says whether systemctl is installed and the user's manager
// answers, and says so when it is not.
func reachable(ctx context.Context, o Options) bool {
	if o.Systemctl == "" {
		fmt.Fprintln(o.Out, "systemctl is not installed (no systemd here): nothing was asked of it")
		return false
	}
	if err := systemctl(ctx, o, "show-environment"); err != nil {
		fmt.Fprintf(o.Out, "the user's systemd manager does not answer (%v): nothing was asked of it\n", err)
		return false
	}
	return true
}

// answer is one word systemctl prints (is-active, is-enabled), whatever
// its exit status says.
func answer(ctx context.Context, o Options, args ...string) string {
	out, _ := run(ctx, o, args...)
	if w := strings.Fields(out); len(w) > 0 {
		return w[0]
	}
	return "unknown"
}

func systemctl(ctx context.Context, o Options, args ...string) error {
	out, err := run(ctx, o, args...)
	if err != nil {
		if s := strings.TrimSpace(out); s != "" {
			return fmt.Errorf("systemctl --user %s: %s", strings.Join(args, " "), firstLine(s))
		}
		return fmt.Errorf("systemctl --user %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

func run(ctx context.Context, o Options, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, systemctlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.Systemctl, append([]string{"--user"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// lingering says whether the user's units run without a login, and how
// to have them.
func lingering(o Options) {
	if o.User != "" {
		if _, err := os.Stat(filepath.Join("/var/lib/systemd/linger", o.User)); err == nil {
			fmt.Fprintln(o.Out, "lingering is on: the socket and the chats outlive your logout")
			return
		}
	}
	fmt.Fprintln(o.Out, "for the socket and the chats to outlive your logout, turn lingering on: loginctl enable-linger")
}

// writeFile writes a file atomically: a temporary file beside it, synced,
// renamed into place, and the folder synced.
func writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
