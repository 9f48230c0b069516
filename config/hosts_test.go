package config

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHostTables(t *testing.T) {
	c, err := Parse([]byte(`
[host.box]
ssh = "me@box.example"
ssh_options = ["-F", "/etc/acpmux/ssh_config", "-oServerAliveInterval=15", "-o", "StrictHostKeyChecking accept-new", "-o", "ConnectTimeout=5", "-i", "-oStrictHostKeyChecking=no.key"]
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
	if box.SSH != "me@box.example" || len(box.SSHOptions) != 9 || box.Home != "~/.local/share/acpmux-work" || box.RemoteCommand() != "/opt/acpmux/acpmux-tui" {
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
		// The spellings ssh reads as the same setting.
		{"weak tab", "[host.box]\nssh = \"b\"\nssh_options = [\"-o\", \"StrictHostKeyChecking\\tno\"]\n", `entry 1 ("StrictHostKeyChecking\tno") turns host-key checking off`},
		{"weak quoted", "[host.box]\nssh = \"b\"\nssh_options = [\"-o\", 'StrictHostKeyChecking=\"no\"']\n", `entry 1 ("StrictHostKeyChecking=\"no\"") turns host-key checking off`},
		{"weak false", "[host.box]\nssh = \"b\"\nssh_options = [\"-oStrictHostKeyChecking=false\"]\n", "entry 0 (\"-oStrictHostKeyChecking=false\") turns host-key checking off"},
		{"weak spaced", "[host.box]\nssh = \"b\"\nssh_options = [\"-o\", \" stricthostkeychecking = OFF\"]\n", "entry 1 (\" stricthostkeychecking = OFF\") turns host-key checking off"},
		{"weak quoted keyword", "[host.box]\nssh = \"b\"\nssh_options = [\"-o\", '\"StrictHostKeyChecking\" no']\n", "turns host-key checking off"},
		{"weak behind other flags", "[host.box]\nssh = \"b\"\nssh_options = [\"-4Co\", \"UserKnownHostsFile none\"]\n", "entry 1 (\"UserKnownHostsFile none\") turns host-key checking off"},
		{"weak after others", "[host.box]\nssh = \"b\"\nssh_options = [\"-p\", \"2222\", \"-i\", \"/k\", \"-oUserKnownHostsFile /dev/null /dev/null\"]\n", "entry 4"},
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

// needSSH skips a test that asks ssh (ssh -G) where ssh is not installed.
func needSSH(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh is not installed: CheckSSH judges the options' text (TestCheckSSHWithoutSSH)")
	}
}

// sshConfigFile writes an ssh config file and returns its path.
func sshConfigFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckSSH: ssh itself (ssh -G) judges what a host's ssh_options mean:
// every spelling of "no host-key checking" is refused, a -F file that says
// it too (what the text check cannot see), and a known-hosts file that is
// /dev/null under another name; settings that keep the checking are
// accepted.
func TestCheckSSH(t *testing.T) {
	needSSH(t)
	devnull := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.Symlink("/dev/null", devnull); err != nil {
		t.Fatal(err)
	}
	weakFile := sshConfigFile(t, "Host box.example\n  StrictHostKeyChecking no\n")
	nullFile := sshConfigFile(t, "Host *\n  UserKnownHostsFile /dev/null\n")
	otherHost := sshConfigFile(t, "Host elsewhere.example\n  StrictHostKeyChecking no\n")
	for _, tc := range []struct {
		name    string
		options []string
		want    string // "" for accepted
	}{
		{"no", []string{"-o", "StrictHostKeyChecking=no"}, `ssh -G` + "` says \"stricthostkeychecking false\""},
		{"tab", []string{"-o", "StrictHostKeyChecking\tno"}, "stricthostkeychecking false"},
		{"quoted", []string{"-o", `StrictHostKeyChecking="no"`}, "stricthostkeychecking false"},
		{"false", []string{"-oStrictHostKeyChecking=false"}, "stricthostkeychecking false"},
		{"off, upper case", []string{"-o", "STRICTHOSTKEYCHECKING OFF"}, "stricthostkeychecking false"},
		{"known hosts /dev/null", []string{"-o", "UserKnownHostsFile=/dev/null"}, "userknownhostsfile /dev/null"},
		{"known hosts none", []string{"-o", "UserKnownHostsFile=none"}, "userknownhostsfile none"},
		{"known hosts a link to /dev/null", []string{"-o", "UserKnownHostsFile=" + devnull}, "turn host-key checking off"},
		{"a -F file that says no", []string{"-F", weakFile}, "stricthostkeychecking false"},
		{"a -F file that throws the known hosts away", []string{"-F", nullFile}, "userknownhostsfile /dev/null"},
		{"an option that prints no settings", []string{"-V"}, "printed no settings"},
		{"a value ssh refuses", []string{"-o", "StrictHostKeyChecking=maybe"}, "could not read them"},
		{"benign", []string{"-o", "ConnectTimeout=5", "-oServerAliveInterval=15", "-p", "2222"}, ""},
		{"accept-new", []string{"-o", "StrictHostKeyChecking=accept-new"}, ""},
		{"yes, and other known hosts", []string{"-o", "StrictHostKeyChecking yes", "-o", "UserKnownHostsFile /dev/null " + filepath.Join(t.TempDir(), "kh")}, ""},
		{"a -F file that says no for another host", []string{"-F", otherHost}, ""},
		{"none", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := HostConfig{SSH: "box.example", SSHOptions: tc.options}.CheckSSH(context.Background())
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("CheckSSH(%q) = %v, want it accepted", tc.options, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("CheckSSH(%q) = %v, want an error saying %q", tc.options, err, tc.want)
			}
		})
	}
}

// TestCheckSSHWithoutSSH: where ssh is not installed, CheckSSH judges the
// options by their text, and says so; what it cannot see (a -F file) it
// leaves to ssh, which is not there to run either.
func TestCheckSSHWithoutSSH(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := HostConfig{SSH: "b", SSHOptions: []string{"-C", "-o", "StrictHostKeyChecking\tno"}}.CheckSSH(context.Background())
	if err == nil || !strings.Contains(err.Error(), `entry 2 ("StrictHostKeyChecking\tno") turns host-key checking off`) ||
		!strings.Contains(err.Error(), "judged by its text: ssh is not installed") {
		t.Fatalf("CheckSSH without ssh = %v, want the text check's refusal, saying ssh is not installed", err)
	}
	for _, opts := range [][]string{{"-o", "ConnectTimeout=5"}, {"-F", "/nonexistent/ssh_config"}} {
		if err := (HostConfig{SSH: "b", SSHOptions: opts}).CheckSSH(context.Background()); err != nil {
			t.Errorf("CheckSSH(%q) without ssh = %v, want it accepted", opts, err)
		}
	}
}

// TestSSHSettings: ssh's argv is read as its getopt reads it: an option's
// argument joined or in the next word, options grouped behind one dash,
// the argument of another option (-i FILE) never taken for one.
func TestSSHSettings(t *testing.T) {
	got := sshSettings([]string{"-4Co", "A=1", "-oB 2 3", "-i", "-oC=x", "-p22", "dest", "-o", `"D" = '4 5' "six" #seven`, "--", "-oE=no"})
	want := []sshSetting{{1, "a", []string{"1"}}, {2, "b", []string{"2", "3"}}, {8, "d", []string{"4 5", "six"}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sshSettings = %v, want %v", got, want)
	}
}
