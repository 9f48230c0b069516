package sshd

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSSHRuns logs in through the generated config, host-key checking on,
// and runs a command there.
func TestSSHRuns(t *testing.T) {
	s := Require(t)
	out, err := exec.Command("ssh", "-F", s.Config, Alias, "--", "echo", "over-ssh").CombinedOutput()
	if err != nil {
		t.Fatalf("ssh -F %s %s echo: %v: %s\nsshd log:\n%s", s.Config, Alias, err, out, s.Log())
	}
	if strings.TrimSpace(string(out)) != "over-ssh" {
		t.Fatalf("ssh printed %q, want over-ssh", out)
	}
	if err := exec.Command("ssh", "-F", s.Config, Alias, "true").Run(); err != nil {
		t.Fatalf("ssh %s true: %v", Alias, err)
	}
}

// TestHostKeyChecked: a known_hosts that does not hold the host key makes
// ssh refuse, so the rig does not pass by turning the check off.
func TestHostKeyChecked(t *testing.T) {
	s := Require(t)
	out, err := exec.Command("ssh", "-F", s.Config, "-o", "UserKnownHostsFile=/dev/null", Alias, "true").CombinedOutput()
	if err == nil {
		t.Fatalf("ssh with an empty known_hosts logged in; want a host-key refusal")
	}
	if !strings.Contains(string(out), "Host key verification failed") {
		t.Fatalf("ssh said %q, want Host key verification failed", out)
	}
}
