package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

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
		}
		if i, why := weakOption(h.SSHOptions); why != "" {
			return bad(toml.Key{"host", name, "ssh_options"}, "entry %d (%q) %s", i, h.SSHOptions[i], why)
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

// remotePath reports whether p is absolute or starts at the home (~ or ~/).
func remotePath(p string) bool {
	if strings.ContainsRune(p, 0) {
		return false
	}
	return strings.HasPrefix(p, "/") || p == "~" || strings.HasPrefix(p, "~/")
}

// Host-key checking in ssh_options.
//
// acpmux-tui runs OpenSSH as it is installed and never turns its host-key
// checking off; a host's ssh_options may not either. Two checks hold that:
//   - when the config is read, the text of every -o option (weakOption), as
//     ssh reads it: its keyword in any case, then blanks or "=", then its
//     values, perhaps quoted. It costs nothing and its refusal names the
//     key's line, but it cannot see into a -F file, nor know every spelling.
//   - before ssh is run for a host (CheckSSH), ssh itself: `ssh -G` prints
//     the settings a connection would use, without connecting. It is the
//     authority, and costs a run of ssh.
//
// Refused: StrictHostKeyChecking no (off, false), which takes any key, a
// changed one too; and known hosts thrown away (UserKnownHostsFile
// /dev/null, or none), with which no key is ever known. StrictHostKeyChecking
// accept-new is allowed: it adds the key of a host it has never seen
// (trust on first use, what a user answering "yes" does) but refuses a
// changed key as yes does; and acpmux-tui runs ssh where no one can answer
// ask (the TUI's links run in BatchMode).

// sshOptionsWithArg are the letters of ssh's options that take an
// argument (OpenSSH's getopt string): in "-4oX" the "o" takes "X", and in
// "-o" "X" the next word.
const sshOptionsWithArg = "BbcDEeFIiJLlmOoPpQRSWw"

// sshSetting is one -o option of an ssh argv: the argument it is in, and
// its keyword (lower case) and values as ssh reads them.
type sshSetting struct {
	index   int
	keyword string
	values  []string
}

// sshSettings walks args as ssh's getopt does and returns its -o settings.
// A word that is no option is skipped (ssh takes it for the destination,
// then reads options again).
func sshSettings(args []string) []sshSetting {
	var out []sshSetting
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			if strings.IndexByte(sshOptionsWithArg, c) < 0 {
				continue
			}
			arg, at := a[j+1:], i
			if arg == "" {
				if i+1 >= len(args) {
					return out
				}
				i++
				arg, at = args[i], i
			}
			if c == 'o' {
				if k, v, ok := parseSSHOption(arg); ok {
					out = append(out, sshSetting{at, k, v})
				}
			}
			break
		}
	}
	return out
}

// parseSSHOption reads one -o option as ssh's config reader does: blanks,
// a keyword (perhaps in double quotes), blanks or one "=" with blanks
// around it, then the values: words split at blanks, quoted with " or ',
// a # that starts a word ending them.
func parseSSHOption(line string) (keyword string, values []string, ok bool) {
	const blanks = " \t\r\n"
	s := strings.TrimLeft(line, blanks)
	if strings.HasPrefix(s, `"`) {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return "", nil, false
		}
		keyword, s = s[1:1+end], s[2+end:]
	} else {
		end := strings.IndexAny(s, blanks+"=")
		if end < 0 {
			end = len(s)
		}
		keyword, s = s[:end], s[end:]
	}
	s = strings.TrimLeft(s, blanks)
	if strings.HasPrefix(s, "=") {
		s = strings.TrimLeft(s[1:], blanks)
	}
	return strings.ToLower(keyword), sshWords(s), keyword != ""
}

// sshWords splits an option's values as ssh does: at blanks, with quotes
// (" or ') and backslash escapes, up to a # that starts a word.
func sshWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '#' && !inWord:
			return words
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// weakOption finds, by their text, the first option of args that turns
// host-key checking off: the index of the word it is in and why, or -1
// and "".
func weakOption(args []string) (int, string) {
	for _, st := range sshSettings(args) {
		if weakSetting(st.keyword, st.values) {
			return st.index, "turns host-key checking off; acpmux-tui keeps it on"
		}
	}
	return -1, ""
}

// weakSetting reports whether an ssh setting (keyword in lower case, as a
// -o option gives it or `ssh -G` prints it) turns host-key checking off.
func weakSetting(keyword string, values []string) bool {
	switch keyword {
	case "stricthostkeychecking":
		if len(values) > 0 {
			switch strings.ToLower(values[0]) {
			case "no", "off", "false":
				return true
			}
		}
	case "userknownhostsfile":
		for _, v := range values {
			if v != "/dev/null" && !strings.EqualFold(v, "none") {
				return false
			}
		}
		return true // empty too: ssh refuses that one itself
	}
	return false
}

// sshCheckTimeout bounds `ssh -G`: it reads files, and runs the Match exec
// of a -F file among the options.
const sshCheckTimeout = 10 * time.Second

// CheckSSH asks ssh what the host's ssh_options mean and refuses them when
// they turn host-key checking off. `ssh -G -F none OPTIONS DEST` prints
// the settings a connection with them would use, without connecting:
// -F none leaves the user's own ssh config out (~/.ssh/config and
// /etc/ssh/ssh_config are theirs), so what is judged is what the options
// add, a -F file among them. Run it before ssh is run for the host, not
// when the config is read: a run of ssh costs more than a whole
// `acpmux-tui ls`. Where ssh is not installed, the options' text is judged
// (as when the config was read), and the error says so. Its errors name no
// host: the caller does.
func (h HostConfig) CheckSSH(ctx context.Context) error {
	if len(h.SSHOptions) == 0 {
		return nil
	}
	ssh, err := exec.LookPath("ssh")
	if err != nil {
		if i, why := weakOption(h.SSHOptions); why != "" {
			return fmt.Errorf("ssh_options entry %d (%q) %s (judged by its text: ssh is not installed to ask `ssh -G` what the options mean)", i, h.SSHOptions[i], why)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, sshCheckTimeout)
	defer cancel()
	args := append([]string{"-G", "-F", "none"}, h.SSHOptions...)
	cmd := exec.CommandContext(ctx, ssh, append(args, h.SSH)...)
	var out, said bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &said
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(said.String())
		if ctx.Err() != nil || why == "" {
			why = err.Error()
		}
		return fmt.Errorf("ssh_options: `ssh -G` could not read them: %s", why)
	}
	return judgeSSHConfig(out.String())
}

// judgeSSHConfig reads what `ssh -G` printed, a setting a line ("keyword
// values…"), and says why it turns host-key checking off, or nil. A known
// hosts file that is a device (a link to /dev/null) counts as /dev/null.
// Output without stricthostkeychecking is no configuration (an option such
// as -V made ssh print something else): nothing could be judged, and that
// is refused too.
func judgeSSHConfig(out string) error {
	seen := false
	for _, line := range strings.Split(out, "\n") {
		keyword, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		keyword = strings.ToLower(keyword)
		values := strings.Fields(rest)
		switch keyword {
		case "stricthostkeychecking":
			seen = true
		case "userknownhostsfile":
			values = slices.Clone(values)
			for i, v := range values {
				if fi, err := os.Stat(v); err == nil && fi.Mode()&os.ModeDevice != 0 {
					values[i] = "/dev/null"
				}
			}
		}
		if weakSetting(keyword, values) {
			return fmt.Errorf("ssh_options turn host-key checking off (`ssh -G` says %q); acpmux-tui keeps it on", strings.TrimSpace(line))
		}
	}
	if !seen {
		return errors.New("ssh_options: `ssh -G` printed no settings to judge them by (an option there makes ssh do something else)")
	}
	return nil
}
