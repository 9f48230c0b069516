package config

import (
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// DefaultHostCommand is the program run on another host when its
// `[host.NAME]` names no command: acpmux-tui on the remote login's PATH.
const DefaultHostCommand = "acpmux-tui"

// HostConfig is one `[host.NAME]` table: another machine reached with
// OpenSSH as it is installed (the user's keys, config, agent and known
// hosts).
type HostConfig struct {
	// SSH is the destination given to ssh: anything ssh accepts, such as
	// "user@box" or an alias of ~/.ssh/config.
	SSH string `toml:"ssh"`
	// SSHOptions are more arguments for ssh, put before the destination,
	// such as ["-F", "/path/config"].
	SSHOptions []string `toml:"ssh_options"`
	// Home is the agent home on the remote (absolute or ~/...); empty
	// means the remote's own default.
	Home string `toml:"home"`
	// Command is where acpmux-tui is on the remote (absolute, ~/..., or a
	// name looked up on its PATH); empty means DefaultHostCommand.
	Command string `toml:"command"`
	// Budget is the most bytes a second of screen updates the host's
	// server sends this machine's TUI over the link; 0 (unset) is
	// DefaultHostBudget. Over it the screens coalesce further and the
	// chats changing take turns, so a flooding chat starves none.
	Budget int64 `toml:"budget"`
}

// DefaultHostBudget and MinHostBudget bound a host's budget: 1 MiB/s
// unless set, and never under 16 KiB/s (a 160x45 screen a second).
const (
	DefaultHostBudget = 1 << 20
	MinHostBudget     = 16 << 10
	maxHostBudget     = 1 << 40
)

// BudgetOrDefault is the host's budget in bytes per second.
func (h HostConfig) BudgetOrDefault() int64 {
	if h.Budget == 0 {
		return DefaultHostBudget
	}
	return h.Budget
}

// RemoteCommand is the program to run on the host.
func (h HostConfig) RemoteCommand() string {
	if h.Command == "" {
		return DefaultHostCommand
	}
	return h.Command
}

// HostNames returns the configured host names in order.
func (c *Config) HostNames() []string {
	names := make([]string, 0, len(c.Host))
	for name := range c.Host {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// weakeningOptions are ssh settings that turn host-key checking off; a
// host's ssh_options may not carry them (lower case, as ssh reads them).
var weakeningOptions = map[string][]string{
	"stricthostkeychecking": {"no", "off", "accept-new"},
	"userknownhostsfile":    {"/dev/null"},
}

// checkHosts checks every [host.NAME] table.
func (c *Config) checkHosts(bad func(key toml.Key, format string, args ...any) error) error {
	for _, name := range c.HostNames() {
		h := c.Host[name]
		if !validHarnessName(name) || name == "local" {
			return bad(toml.Key{"host", name}, "a host name is 1-32 of [a-z0-9_-], and not \"local\"")
		}
		switch {
		case h.SSH == "":
			return bad(toml.Key{"host", name}, "ssh is missing: the destination ssh takes, such as \"me@box\" or an alias of ~/.ssh/config")
		case strings.HasPrefix(h.SSH, "-"):
			return bad(toml.Key{"host", name, "ssh"}, "%q starts with '-': put options in ssh_options", h.SSH)
		case strings.ContainsAny(h.SSH, " \t\r\n\x00"):
			return bad(toml.Key{"host", name, "ssh"}, "%q holds a space or a control character", h.SSH)
		}
		for i, o := range h.SSHOptions {
			if o == "" || strings.ContainsRune(o, 0) {
				return bad(toml.Key{"host", name, "ssh_options"}, "entry %d is empty or holds a NUL byte", i)
			}
			if why := weakens(o); why != "" {
				return bad(toml.Key{"host", name, "ssh_options"}, "entry %d (%q) %s", i, o, why)
			}
		}
		if h.Budget != 0 && (h.Budget < MinHostBudget || h.Budget > maxHostBudget) {
			return bad(toml.Key{"host", name, "budget"}, "%d is not a byte rate of %d..%d a second (unset is %d)", h.Budget, MinHostBudget, int64(maxHostBudget), DefaultHostBudget)
		}
		if h.Home != "" && !remotePath(h.Home) {
			return bad(toml.Key{"host", name, "home"}, "%q is not an absolute path or ~/...", h.Home)
		}
		if h.Command != "" && (strings.ContainsAny(h.Command, "\x00\r\n") || strings.HasPrefix(h.Command, "-") ||
			strings.Contains(h.Command, "/") && !remotePath(h.Command)) {
			return bad(toml.Key{"host", name, "command"}, "%q is not an absolute path, ~/... or a program name", h.Command)
		}
	}
	return nil
}

// weakens says why an ssh option turns host-key checking off, or "".
func weakens(opt string) string {
	o := strings.TrimPrefix(opt, "-o")
	k, v, ok := strings.Cut(o, "=")
	if !ok {
		k, v, ok = strings.Cut(strings.TrimSpace(o), " ")
	}
	if !ok {
		return ""
	}
	k, v = strings.ToLower(strings.TrimSpace(k)), strings.ToLower(strings.TrimSpace(v))
	for _, w := range weakeningOptions[k] {
		if v == w {
			return "turns host-key checking off; acpmux-tui keeps it on"
		}
	}
	return ""
}

// remotePath reports whether p is absolute or starts at the home (~ or ~/).
func remotePath(p string) bool {
	if strings.ContainsRune(p, 0) {
		return false
	}
	return strings.HasPrefix(p, "/") || p == "~" || strings.HasPrefix(p, "~/")
}
