package config

import (
	"slices"
	"strings"
	"testing"
)

func TestHostTables(t *testing.T) {
	c, err := Parse([]byte(`
[host.box]
ssh = "me@box.example"
ssh_options = ["-F", "/etc/acpmux/ssh_config", "-oServerAliveInterval=15"]
home = "~/.local/share/acpmux-work"
command = "/opt/acpmux/acpmux-tui"
budget = 65536

[host.vm]
ssh = "vm"
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.HostNames(); !slices.Equal(got, []string{"box", "vm"}) {
		t.Fatalf("HostNames = %v", got)
	}
	box := c.Host["box"]
	if box.SSH != "me@box.example" || len(box.SSHOptions) != 3 || box.Home != "~/.local/share/acpmux-work" || box.RemoteCommand() != "/opt/acpmux/acpmux-tui" {
		t.Fatalf("box = %+v", box)
	}
	if box.BudgetOrDefault() != 65536 || c.Host["vm"].BudgetOrDefault() != DefaultHostBudget {
		t.Fatalf("budgets: box %d, vm %d", box.BudgetOrDefault(), c.Host["vm"].BudgetOrDefault())
	}
	if c.Host["vm"].RemoteCommand() != DefaultHostCommand {
		t.Fatalf("vm command = %q", c.Host["vm"].RemoteCommand())
	}
}

func TestHostTablesRefused(t *testing.T) {
	for _, tc := range []struct{ name, conf, want string }{
		{"no ssh", "[host.box]\nhome = \"/h\"\n", "line 1: host.box: ssh is missing"},
		{"bad name", "[host.Box]\nssh = \"b\"\n", "host.Box: a host name is"},
		{"local", "[host.local]\nssh = \"b\"\n", "not \"local\""},
		{"dash", "[host.box]\nssh = \"-oProxyCommand=x\"\n", "line 2: host.box.ssh: \"-oProxyCommand=x\" starts with '-'"},
		{"space", "[host.box]\nssh = \"a b\"\n", "holds a space"},
		{"weak", "[host.box]\nssh = \"b\"\nssh_options = [\"-o\", \"StrictHostKeyChecking=no\"]\n", "line 3: host.box.ssh_options: entry 1 (\"StrictHostKeyChecking=no\") turns host-key checking off"},
		{"weak joined", "[host.box]\nssh = \"b\"\nssh_options = [\"-oUserKnownHostsFile=/dev/null\"]\n", "turns host-key checking off"},
		{"empty option", "[host.box]\nssh = \"b\"\nssh_options = [\"\"]\n", "entry 0 is empty"},
		{"relative home", "[host.box]\nssh = \"b\"\nhome = \"data/acpmux\"\n", "line 3: host.box.home: \"data/acpmux\" is not an absolute path"},
		{"relative command", "[host.box]\nssh = \"b\"\ncommand = \"bin/acpmux-tui\"\n", "host.box.command"},
		{"small budget", "[host.box]\nssh = \"b\"\nbudget = 1000\n", "line 3: host.box.budget: 1000 is not a byte rate of 16384.."},
		{"unknown key", "[host.box]\nssh = \"b\"\nport = 22\n", "unknown key \"host.box.port\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.conf))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse = %v, want an error with %q", err, tc.want)
			}
		})
	}
}
