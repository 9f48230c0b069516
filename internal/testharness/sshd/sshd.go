// Package sshd is a test rig: a real OpenSSH server on a loopback port,
// run as the current user with a host key and a client key it generates,
// and an ssh config file naming it by a Host alias. Host-key checking stays
// on: the host key is written to a known_hosts file the rig owns, which the
// config names. Tests reach it with `ssh -F Server.Config ALIAS`.
package sshd

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Alias is the Host alias the generated ssh config gives the server.
const Alias = "test"

// Server is one running sshd.
type Server struct {
	// Dir holds the keys, the configs and the log.
	Dir string
	// Config is the ssh client config file (use with ssh -F).
	Config string
	// Port is the loopback port sshd listens on.
	Port int
	// User is who ssh logs in as: the current user.
	User string
	// Home is a second agent home for the far side (made, empty): the
	// server behind ssh uses it, so the two sides' chats stay apart.
	Home string

	cmd *exec.Cmd
	log string
}

// ErrUnavailable is wrapped by the error Start returns when sshd cannot be
// run on this machine (not installed, or it would not start).
var ErrUnavailable = errors.New("sshd cannot be started here")

// Binary is where sshd is looked for: on PATH, else the Debian place.
func Binary() (string, error) {
	if p, err := exec.LookPath("sshd"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd"} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: no sshd binary (install openssh-server)", ErrUnavailable)
}

// Require starts a server for t, stopping it at the end of the test, or
// skips t with the reason when sshd cannot be started here (and under
// -short, which runs no real peers). Under
// ACPMUX_REQUIRE_PEERS=1 it fails instead of skipping.
func Require(t testing.TB) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no sshd")
	}
	s, err := Start(t.TempDir())
	if errors.Is(err, ErrUnavailable) {
		if os.Getenv("ACPMUX_REQUIRE_PEERS") == "1" {
			t.Fatalf("sshd: %v", err)
		}
		fmt.Fprintf(os.Stderr, "SKIP %s: %v\n", t.Name(), err)
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatalf("start sshd: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Start generates keys and configs in dir and starts sshd there, returning
// once it accepts connections.
func Start(dir string) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	for _, tool := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%w: no %s on PATH (install openssh-client)", ErrUnavailable, tool)
		}
	}
	u, err := user.Current()
	if err != nil {
		return nil, fmt.Errorf("who is the current user: %w", err)
	}
	// ssh refuses keys and configs others can read; sshd's StrictModes
	// checks the folders up to the authorized keys.
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("make %s private: %w", dir, err)
	}
	s := &Server{Dir: dir, User: u.Username, log: filepath.Join(dir, "sshd.log"), Home: filepath.Join(dir, "remote-home")}
	if err := os.MkdirAll(s.Home, 0o700); err != nil {
		return nil, fmt.Errorf("make the remote agent home: %w", err)
	}
	hostKey := filepath.Join(dir, "host_ed25519")
	clientKey := filepath.Join(dir, "id_ed25519")
	for _, k := range []string{hostKey, clientKey} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "acpmux-test", "-f", k).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("generate key %s: %v: %s", k, err, out)
		}
	}
	pub, err := os.ReadFile(clientKey + ".pub")
	if err != nil {
		return nil, fmt.Errorf("read the client key: %w", err)
	}
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, pub, 0o600); err != nil {
		return nil, fmt.Errorf("write authorized_keys: %w", err)
	}
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		return nil, fmt.Errorf("read the host key: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s.Port = port
	known := filepath.Join(dir, "known_hosts")
	entry := fmt.Sprintf("[127.0.0.1]:%d %s", port, strings.TrimSpace(string(hostPub)))
	if err := os.WriteFile(known, []byte(entry+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write known_hosts: %w", err)
	}
	sshdConfig := filepath.Join(dir, "sshd_config")
	conf := strings.Join([]string{
		"ListenAddress 127.0.0.1:" + strconv.Itoa(port),
		"HostKey " + hostKey,
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"AuthorizedKeysFile " + authorized,
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		// The rig's files live under the test's temporary folder, which
		// may sit below folders others can write (/tmp).
		"StrictModes no",
		"PermitRootLogin prohibit-password",
		"AllowUsers " + u.Username,
		// Keep the caller's environment names out: the login's own is used.
		"AcceptEnv none",
		"Subsystem sftp internal-sftp",
		"LogLevel VERBOSE",
		"",
	}, "\n")
	if err := os.WriteFile(sshdConfig, []byte(conf), 0o600); err != nil {
		return nil, fmt.Errorf("write sshd_config: %w", err)
	}
	s.Config = filepath.Join(dir, "ssh_config")
	client := strings.Join([]string{
		"Host " + Alias,
		"  HostName 127.0.0.1",
		"  Port " + strconv.Itoa(port),
		"  User " + u.Username,
		"  IdentityFile " + clientKey,
		"  IdentitiesOnly yes",
		"  UserKnownHostsFile " + known,
		"  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes",
		"  BatchMode yes",
		"  LogLevel ERROR",
		"",
	}, "\n")
	if err := os.WriteFile(s.Config, []byte(client), 0o600); err != nil {
		return nil, fmt.Errorf("write ssh_config: %w", err)
	}
	// Debian's sshd needs its privilege separation folder, which only its
	// init script makes; as root, make it (elsewhere sshd says why not).
	if _, err := os.Stat("/run/sshd"); errors.Is(err, fs.ErrNotExist) {
		os.MkdirAll("/run/sshd", 0o755)
	}
	// sshd wants to be run by its absolute path (it re-execs itself).
	s.cmd = exec.Command(bin, "-D", "-e", "-f", sshdConfig)
	logf, err := os.Create(s.log)
	if err != nil {
		return nil, fmt.Errorf("create the sshd log: %w", err)
	}
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("%w: run %s: %v", ErrUnavailable, bin, err)
	}
	logf.Close()
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	backoff := time.Millisecond
	for {
		c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			c.Close()
			return s, nil
		}
		select {
		case err := <-exited:
			out, _ := os.ReadFile(s.log)
			return nil, fmt.Errorf("%w: sshd exited (%v): %s", ErrUnavailable, err, strings.TrimSpace(string(out)))
		case <-deadline.C:
			s.cmd.Process.Kill()
			return nil, fmt.Errorf("sshd did not listen on port %d within a minute", port)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

// Stop ends sshd (sessions it forked end with their connections).
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(os.Interrupt)
		s.cmd.Process.Kill()
	}
}

// Log returns what sshd has logged, for a failure message.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// SSH returns the argv prefix that reaches the server: ssh -F CONFIG.
func (s *Server) SSH() []string { return []string{"ssh", "-F", s.Config} }

// freePort asks the kernel for a loopback port nobody listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
