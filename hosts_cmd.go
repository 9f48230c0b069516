package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
)

// probeOptions are added to ssh when `hosts` asks each host: never ask
// for a password or a host key (that is stricter, not weaker: an unknown
// key is refused), and give up on a host that does not answer.
var probeOptions = []string{"-o", "BatchMode=yes", "-o", "ConnectTimeout=10"}

// defaultInstallPath is where `hosts install` puts acpmux-tui on a host
// whose config names no command with a folder.
const defaultInstallPath = "~/.local/bin/acpmux-tui"

// hostJSON is one host as `hosts --json` prints it.
type hostJSON struct {
	Name     string `json:"name"`
	SSH      string `json:"ssh"`
	Answers  bool   `json:"answers"`
	Version  string `json:"version,omitempty"`
	Protocol int    `json:"protocol,omitempty"`
	Chats    int    `json:"chats"`
	Error    string `json:"error,omitempty"`
}

// cmdHosts is `hosts [--json]` and `hosts install NAME`.
func cmdHosts(a *app, args []string) error {
	if len(args) > 0 && args[0] == "install" {
		return cmdHostsInstall(a, args[1:])
	}
	fs := newFlags(a, "hosts")
	asJSON := fs.Bool("json", false, "print the hosts as a JSON array")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui hosts [--json] | acpmux-tui hosts install NAME")
	}
	if err := a.open(); err != nil {
		return err
	}
	names := a.cfg.HostNames()
	rows := make([]hostJSON, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows[i] = a.probeHost(name)
		}()
	}
	wg.Wait()
	if *asJSON {
		return a.printJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.stdout, "no hosts configured (add a [host.NAME] table to the config; see docs/config.md)")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSSH\tSTATE")
	for _, r := range rows {
		state := fmt.Sprintf("answers: acpmux-tui %s, %d chats", r.Version, r.Chats)
		if !r.Answers {
			state = "does not answer: " + r.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, r.SSH, state)
	}
	return tw.Flush()
}

// probeHost dials one host and asks for its chats.
func (a *app) probeHost(name string) hostJSON {
	h := client.Host{Name: name, HostConfig: a.cfg.Host[name]}
	row := hostJSON{Name: name, SSH: h.SSH}
	c, err := client.DialHost(context.Background(), h, probeOptions...)
	if err != nil {
		row.Error = err.Error()
		return row
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), client.HostTimeout)
	defer cancel()
	hello, err := c.Hello(ctx)
	if err == nil {
		var list proto.ListResult
		if err = c.Call(ctx, proto.MethodList, struct{}{}, &list); err == nil {
			row.Answers, row.Version, row.Protocol, row.Chats = true, hello.Version, hello.Protocol, len(list.Chats)
			return row
		}
	}
	row.Error = err.Error()
	return row
}

// cmdHostsInstall is `hosts install NAME`: this binary copied to the host
// over the same ssh, when the host's OS and architecture are this one's.
func cmdHostsInstall(a *app, args []string) error {
	fs := newFlags(a, "hosts")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui hosts install NAME")
	}
	if err := a.open(); err != nil {
		return err
	}
	name := pos[0]
	hc, ok := a.cfg.Host[name]
	if !ok {
		return usagef("no host %q in the config (hosts: %s)", name, strings.Join(a.cfg.HostNames(), ", "))
	}
	h := client.Host{Name: name, HostConfig: hc}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	uname, err := runOnHost(ctx, h, nil, "uname -sm")
	if err != nil {
		return fmt.Errorf("hosts install %s: ask its OS and architecture: %w", name, err)
	}
	want := unameOf(runtime.GOOS, runtime.GOARCH)
	if got := strings.TrimSpace(uname); got != want {
		return fmt.Errorf("hosts install %s: the host is %q and this acpmux-tui is built for %q (%s/%s); build one for the host (GOOS, GOARCH) and copy it there",
			name, got, want, runtime.GOOS, runtime.GOARCH)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("hosts install %s: find this binary: %w", name, err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		return fmt.Errorf("hosts install %s: read %s: %w", name, exe, err)
	}
	dest := defaultInstallPath
	if strings.Contains(hc.Command, "/") {
		dest = hc.Command
	}
	d, t := client.ShellWord(path.Dir(dest)), client.ShellWord(dest+".tmp")
	line := fmt.Sprintf("mkdir -p %s && cat > %s && chmod 755 %s && mv -f %s %s", d, t, t, t, client.ShellWord(dest))
	if _, err := runOnHost(ctx, h, bin, line); err != nil {
		return fmt.Errorf("hosts install %s: copy to %s: %w", name, dest, err)
	}
	fmt.Fprintf(a.stdout, "installed acpmux-tui %s on host %s at %s\n", version, name, dest)
	if hc.Command == "" {
		fmt.Fprintf(a.stdout, "if %s is not on that login's PATH, add command = %q to [host.%s]\n", path.Dir(dest), dest, name)
	}
	return nil
}

// runOnHost runs a shell command line on the host with stdin, returning
// its stdout; a failure carries what was said on stderr.
func runOnHost(ctx context.Context, h client.Host, stdin []byte, line string) (string, error) {
	if err := h.CheckSSH(ctx); err != nil {
		return "", fmt.Errorf("host %s: %w", h.Name, err)
	}
	argv := h.SSHArgs(nil, line)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		// What ssh said is partly the host's: cleaned as its answers are.
		if said := strings.TrimSpace(plaintext.Foreign(errOut.String())); said != "" && errors.As(err, &ee) {
			return "", fmt.Errorf("%s (exit status %d)", said, ee.ExitCode())
		}
		return "", err
	}
	return out.String(), nil
}

// unameOf is what `uname -sm` prints on a machine GOOS/GOARCH runs on.
func unameOf(goos, goarch string) string {
	sys := map[string]string{"linux": "Linux", "darwin": "Darwin", "freebsd": "FreeBSD", "openbsd": "OpenBSD", "netbsd": "NetBSD"}[goos]
	if sys == "" {
		sys = goos
	}
	machine := map[string]string{"amd64": "x86_64", "386": "i686", "arm": "armv7l", "riscv64": "riscv64", "ppc64le": "ppc64le", "s390x": "s390x"}[goarch]
	switch {
	case goarch == "arm64" && goos == "linux":
		machine = "aarch64"
	case goarch == "arm64":
		machine = "arm64"
	case machine == "":
		machine = goarch
	}
	return sys + " " + machine
}
