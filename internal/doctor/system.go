package doctor

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/internal/service"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sandbox"
)

// This file checks what lies around acpmux-tui: the kernel's Landlock
// (the sandbox), the other hosts, and in a clone of the repository the
// real agents its tests run.

// checkSandbox says whether sandboxed chats can run: Landlock, at the ABI
// the sandbox needs. Without it a sandboxed start is refused (never run
// unsandboxed), which fails the doctor only when the config asks for
// sandboxed chats.
func checkSandbox(cfg *config.Config, table *harness.Table) Check {
	c := Check{Name: "sandbox", Status: StatusOK}
	wanted := ""
	if cfg.Sandbox {
		wanted = "sandbox = true"
	}
	for _, s := range table.All() {
		if s.Sandbox != nil && *s.Sandbox && wanted == "" {
			wanted = "[harness." + s.Name + "] sandbox = true"
		}
	}
	abi, err := sandbox.ABI()
	switch {
	case err != nil:
		c.Detail = err.Error() + ": sandboxed chats are refused"
	case abi < sandbox.MinABI:
		c.Detail = fmt.Sprintf("landlock ABI %d, older than the %d the sandbox needs (Linux 6.10 or later): sandboxed chats are refused", abi, sandbox.MinABI)
	default:
		c.Detail = fmt.Sprintf("landlock ABI %d: sandboxed chats can run", abi)
		return c
	}
	c.Status, c.Fix = StatusWarn, "a kernel with Landlock (Linux 6.10 or later, landlock in its lsm= list) for --sandbox"
	if wanted != "" {
		c.Status = StatusFail
		c.Detail += ", and the config has " + wanted
		c.Fix += "; or take " + wanted + " out of the config"
	}
	return c
}

// startHosts asks every `[host.NAME]` at once and returns a function that
// waits for the answers, each bounded by opt.HostTimeout, and makes their
// checks.
func startHosts(ctx context.Context, opt Options, cfg *config.Config) func() []Check {
	names := cfg.HostNames()
	if len(names) == 0 || opt.ProbeHost == nil {
		return func() []Check { return nil }
	}
	answers := make([]chan HostAnswer, len(names))
	for i, name := range names {
		answers[i] = make(chan HostAnswer, 1)
		go func() { answers[i] <- opt.ProbeHost(name, cfg.Host[name]) }()
	}
	deadline := time.Now().Add(opt.HostTimeout)
	return func() []Check {
		var checks []Check
		for i, name := range names {
			c := Check{Name: "host " + name}
			var a HostAnswer
			select {
			case a = <-answers[i]:
			case <-time.After(time.Until(deadline)):
				a.Err = fmt.Sprintf("no answer within %v", opt.HostTimeout)
			case <-ctx.Done():
				a.Err = ctx.Err().Error()
			}
			if a.Answers {
				c.Status = StatusOK
				c.Detail = fmt.Sprintf("%s answers over ssh: acpmux-tui %s, its server runs with %s", cfg.Host[name].SSH, a.Version, count(a.Chats, "chat"))
			} else {
				c.Status = StatusFail
				c.Detail = fmt.Sprintf("%s does not answer: %s", cfg.Host[name].SSH, a.Err)
				c.Fix = fmt.Sprintf("check that `ssh -o BatchMode=yes %s` logs in without a question, and that acpmux-tui is there (acpmux-tui hosts install %s)", cfg.Host[name].SSH, name)
			}
			checks = append(checks, c)
		}
		return checks
	}
}

// module is the repository's module path: a go.mod that names it is a
// clone.
const module = "github.com/acpmux/acpmux-tui"

// checkPeers looks, in a clone of the repository above dir, at the real
// agents the tests run (.peers beside go.mod, installed by scripts/test at
// the versions testdata/peers/package.json pins). ok is false when dir is
// in no clone.
func checkPeers(dir string) (Check, bool) {
	root := cloneRoot(dir)
	if root == "" {
		return Check{}, false
	}
	c := Check{Name: "test peers", Status: StatusOK}
	var pinned struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err := os.ReadFile(filepath.Join(root, "testdata", "peers", "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pinned)
	}
	if err != nil {
		c.Status, c.Detail = StatusWarn, "this is a clone, but its list of peers does not read: "+err.Error()
		return c, true
	}
	var missing, other []string
	for _, name := range sortedNames(pinned.Dependencies) {
		var got struct {
			Version string `json:"version"`
		}
		b, err := os.ReadFile(filepath.Join(root, ".peers", "node_modules", name, "package.json"))
		if err == nil {
			err = json.Unmarshal(b, &got)
		}
		switch {
		case err != nil:
			missing = append(missing, name)
		case got.Version != pinned.Dependencies[name]:
			other = append(other, fmt.Sprintf("%s %s (pinned %s)", name, got.Version, pinned.Dependencies[name]))
		}
	}
	peers := filepath.Join(root, ".peers")
	switch {
	case len(missing) == len(pinned.Dependencies):
		c.Status = StatusWarn
		c.Detail = fmt.Sprintf("this is a clone, and %s holds none of its %d test peers: the tests that need them skip", peers, len(pinned.Dependencies))
	case len(missing)+len(other) > 0:
		c.Status = StatusWarn
		c.Detail = "this is a clone; in " + peers + ": " + strings.Join(append(prefixed("missing ", missing), other...), ", ")
	default:
		c.Detail = fmt.Sprintf("this is a clone, and %s holds its %d test peers at their pinned versions", peers, len(pinned.Dependencies))
	}
	if c.Status != StatusOK {
		c.Fix = "scripts/test installs them (npm, into .peers)"
	}
	return c, true
}

// cloneRoot is the folder holding this repository's go.mod at or above
// dir, or "".
func cloneRoot(dir string) string {
	for dir != "" {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(f)
			first := sc.Scan() && strings.TrimSpace(sc.Text()) == "module "+module
			f.Close()
			if first {
				return dir
			}
			return "" // another module's: no clone of this one around it
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// sortedNames returns m's keys in order.
func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkService says whether systemd owns the server (the units `acpmux-tui
// service install` writes), and whether their socket is this home's.
func checkService(getenv func(string) string, home string) Check {
	c := Check{Name: "service", Status: StatusOK}
	dir, err := service.UnitDir(getenv)
	if err != nil {
		c.Detail = "no systemd units (" + err.Error() + ")"
		return c
	}
	path := filepath.Join(dir, service.SocketUnit)
	b, err := os.ReadFile(path)
	if err != nil {
		c.Detail = "no systemd units: a client starts the server (acpmux-tui service install lets systemd do it)"
		return c
	}
	want := proto.SocketPath(home)
	for _, line := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "ListenStream=")
		if !ok {
			continue
		}
		if v = strings.ReplaceAll(v, "%%", "%"); v != want {
			c.Status = StatusWarn
			c.Detail = fmt.Sprintf("%s listens on %s, not on this agent home's socket %s", path, plaintext.Line(v), want)
			c.Fix = "acpmux-tui service install, with this ACPMUX_HOME, writes the units for this home"
			return c
		}
	}
	c.Detail = path + " is installed: systemd starts the server on the first connection"
	return c
}
