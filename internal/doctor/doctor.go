// Package doctor is `acpmux-tui doctor`: one look at everything that can
// be wrong on this machine (the config, each harness, the server, its
// socket and agent home, the web listener, the sandbox, each other host,
// a clone's test peers), each a Check that is ok, warn or fail with what
// to do about it. It reads; it changes nothing and starts no server.
package doctor

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
)

// Status is how a check came out.
type Status string

// The statuses of a check: a warning does not fail the doctor.
const (
	StatusOK   Status = "ok"
	StatusWarn Status = "warn"
	StatusFail Status = "fail"
)

// Check is one line of the doctor's report: what was looked at (Name),
// how it came out, what was found, and what to do when it is not ok.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

// Report is every check, in the order they were made.
type Report struct {
	Checks []Check `json:"checks"`
}

// Failed reports whether any check failed (the doctor then exits 1).
func (r Report) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == StatusFail {
			return true
		}
	}
	return false
}

// HostAnswer is what asking one `[host.NAME]` over ssh found.
type HostAnswer struct {
	Answers bool
	// Version is the host's acpmux-tui, Chats how many chats its server
	// holds; Err why it did not answer (already cleaned: it is the host's).
	Version string
	Chats   int
	Err     string
}

// Options are what the doctor looks with.
type Options struct {
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Version is this binary's version, compared with the server's.
	Version string
	// ProbeHost asks one host over ssh, as `hosts` does, starting its
	// server there; nil leaves hosts unchecked.
	ProbeHost func(name string, h config.HostConfig) HostAnswer
	// Dir is the working folder: a clone of the repository above it has
	// its test peers checked.
	Dir string
	// VersionTimeout bounds each harness's `--version` (default 5 s);
	// HostTimeout each host's answer (default 20 s); ServerTimeout the
	// server's hello (default 5 s).
	VersionTimeout time.Duration
	HostTimeout    time.Duration
	ServerTimeout  time.Duration
}

// Run makes every check.
func Run(ctx context.Context, opt Options) Report {
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	if opt.VersionTimeout == 0 {
		opt.VersionTimeout = 5 * time.Second
	}
	if opt.HostTimeout == 0 {
		opt.HostTimeout = 20 * time.Second
	}
	if opt.ServerTimeout == 0 {
		opt.ServerTimeout = 5 * time.Second
	}
	var r Report
	add := func(cs ...Check) { r.Checks = append(r.Checks, cs...) }
	paths, err := config.ResolvePaths(opt.Getenv)
	if err != nil {
		add(Check{Name: "paths", Status: StatusFail, Detail: err.Error(),
			Fix: "set ACPMUX_HOME to an absolute path, or HOME"})
		return r
	}
	cfgCheck, cfg, table := checkConfig(paths.Config)
	add(cfgCheck)
	// Hosts take longest (ssh): asked while the rest is looked at.
	hosts := startHosts(ctx, opt, cfg)
	add(checkHarnesses(ctx, opt, cfg, table, paths.Home)...)
	srv := checkServer(ctx, opt, paths.Home)
	add(srv.checks...)
	add(checkService(opt.Getenv, paths.Home))
	add(checkWeb(cfg, srv.pid, paths.Home))
	add(checkSandbox(cfg, table))
	add(hosts()...)
	if c, ok := checkPeers(opt.Dir); ok {
		add(c)
	}
	return r
}

// checkConfig reads the config file with the one reader the commands and
// the server use (harness.Load: the file, then the harness table built
// from it). A config that does not read fails, and the rest of the checks
// go on with the built-in defaults.
func checkConfig(path string) (Check, *config.Config, *harness.Table) {
	c := Check{Name: "config"}
	cfg, table, err := harness.Load(path)
	if err != nil {
		cfg = config.Defaults()
		table, _ = harness.NewTable(cfg)
		c.Status, c.Detail = StatusFail, err.Error()
		c.Fix = fmt.Sprintf("edit %s: correct or remove each key named (docs/config.md lists them); until then the commands that start harnesses refuse it (ls, show, rm and doctor go on, with the last good config a running server holds or the defaults)", path)
		return c, cfg, table
	}
	c.Status = StatusOK
	if _, statErr := os.Stat(path); statErr != nil {
		c.Detail = fmt.Sprintf("no file at %s: the built-in defaults", path)
	} else {
		c.Detail = fmt.Sprintf("%s reads (no unknown key, every value in range)", path)
	}
	return c, cfg, table
}

// Write prints the report as lines, "STATUS  NAME  DETAIL", each fix on
// an indented line below, and a last line that counts what is not ok.
func (r Report) Write(w io.Writer) error {
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.Name))
	}
	warns, fails := 0, 0
	var b strings.Builder
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%-4s  %-*s  %s\n", c.Status, width, c.Name, c.Detail)
		if c.Fix != "" && c.Status != StatusOK {
			fmt.Fprintf(&b, "      %-*s  fix: %s\n", width, "", c.Fix)
		}
		switch c.Status {
		case StatusWarn:
			warns++
		case StatusFail:
			fails++
		}
	}
	switch {
	case warns == 0 && fails == 0:
		b.WriteString("\nall good\n")
	default:
		fmt.Fprintf(&b, "\n%s, %s\n", count(fails, "failure"), count(warns, "warning"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
