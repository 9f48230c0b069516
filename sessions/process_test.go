package sessions

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests below run the test binary again as separate writer processes:
// TestHelperProcess does the writing when ACPMUX_TEST_HELPER names a role.
const helperEnv = "ACPMUX_TEST_HELPER"

func TestHelperProcess(t *testing.T) {
	role := os.Getenv(helperEnv)
	if role == "" {
		t.Skip("runs only as a child of the process tests")
	}
	err := runHelper(role, os.Getenv("ACPMUX_TEST_STORE"), os.Getenv("ACPMUX_TEST_CHAT"), os.Getenv("ACPMUX_TEST_ARG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

func runHelper(role, home, chat, arg string) error {
	s, err := OpenStore(home)
	if err != nil {
		return err
	}
	switch role {
	case "writer":
		// arg is "NAME:DIR,DIR,...": add each folder one by one, append a
		// mark to the chat's name per step, and create one chat per step.
		name, list, _ := strings.Cut(arg, ":")
		for i, d := range strings.Split(list, ",") {
			if _, err := s.AddFolders(chat, []string{d}); err != nil {
				return err
			}
			mark := fmt.Sprintf(" %s.%d", name, i)
			if _, err := s.Update(chat, func(m *Meta) error { m.Name += mark; return nil }); err != nil {
				return err
			}
			if _, err := s.Create(NewChat{Harness: "shell", Name: fmt.Sprintf("%s-%d", name, i)}); err != nil {
				return err
			}
		}
		return nil
	case "crasher":
		// Rewrite the chat and create chats forever, one line per write, so
		// the parent can kill it mid-write.
		out := bufio.NewWriter(os.Stdout)
		dirs := strings.Split(arg, ",")
		for i := 0; ; i++ {
			var err error
			switch i % 4 {
			case 0:
				_, err = s.AddFolders(chat, []string{dirs[i/4%len(dirs)]})
			case 1:
				_, err = s.Update(chat, func(m *Meta) error {
					m.Name = strings.Repeat("n", i%300) + strconv.Itoa(i)
					m.AgentSessionID = fmt.Sprintf("session-%d", i)
					return nil
				})
			case 2:
				_, err = s.RemoveFolders(chat, []string{dirs[i/4%len(dirs)]})
			case 3:
				_, err = s.Create(NewChat{Harness: "shell", Name: "made by the crasher", AdditionalDirectories: dirs[:1+i%len(dirs)]})
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(out, i)
			out.Flush()
		}
	}
	return fmt.Errorf("unknown role %q", role)
}

func helperCmd(t *testing.T, role, home, chat, arg string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+role, "ACPMUX_TEST_STORE="+home, "ACPMUX_TEST_CHAT="+chat, "ACPMUX_TEST_ARG="+arg)
	return cmd
}

// Several processes writing one chat and creating chats at once lose nothing:
// every folder each added is there, every name mark, every created chat.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	s := openStore(t)
	tr := newTree(t)
	chat, err := s.Create(NewChat{Harness: "shell", Name: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	const writers, steps = 4, 16 // 64 folders in all: the most a chat may have
	var cmds []*exec.Cmd
	var want []string
	for w := range writers {
		dirs := makeDirs(t, tr.p(fmt.Sprintf("w%d", w)), steps)
		want = append(want, dirs...)
		cmd := helperCmd(t, "writer", s.Home(), chat.ID, fmt.Sprintf("w%d:%s", w, strings.Join(dirs, ",")))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() && stderr.Len() > 0 {
				t.Logf("writer %d stderr:\n%s", w, stderr.String())
			}
		})
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}

	m, err := s.Load(chat.ID)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, d := range m.AdditionalDirectories {
		have[d] = true
	}
	for _, d := range want {
		if !have[d] {
			t.Errorf("folder %s lost", d)
		}
	}
	if len(m.AdditionalDirectories) != writers*steps {
		t.Errorf("%d folders, want %d", len(m.AdditionalDirectories), writers*steps)
	}
	for w := range writers {
		// Each writer's marks are all there, in its own order.
		last := -1
		for i := range steps {
			at := strings.Index(m.Name, fmt.Sprintf(" w%d.%d", w, i)+" ")
			if at < 0 && strings.HasSuffix(m.Name, fmt.Sprintf(" w%d.%d", w, i)) {
				at = len(m.Name)
			}
			if at < 0 {
				t.Errorf("name mark w%d.%d lost: %q", w, i, m.Name)
			} else if at < last {
				t.Errorf("name mark w%d.%d out of order", w, i)
			}
			last = at
		}
	}
	entries, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if e.Broken != nil {
			t.Errorf("broken chat %s: %v", e.ID, e.Broken)
			continue
		}
		names[e.Meta.Name] = true
		if e.ID != chat.ID {
			if fi, err := os.Stat(e.Meta.Cwd); err != nil || !fi.IsDir() {
				t.Errorf("chat %s has no home folder: %v", e.ID, err)
			}
		}
	}
	if len(entries) != 1+writers*steps {
		t.Errorf("%d chats, want %d", len(entries), 1+writers*steps)
	}
	for w := range writers {
		for i := range steps {
			if !names[fmt.Sprintf("w%d-%d", w, i)] {
				t.Errorf("chat w%d-%d lost", w, i)
			}
		}
	}
}

// A writer killed with SIGKILL at any moment never leaves a chat file
// truncated, empty or missing: every file in chats/ parses after every kill.
func TestKilledWriterLeavesWholeFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns hundreds of processes")
	}
	s := openStore(t)
	tr := newTree(t)
	dirs := makeDirs(t, tr.p("d"), 5)
	chat, err := s.Create(NewChat{Harness: "shell", Name: "survivor", AdditionalDirectories: dirs[:1]})
	if err != nil {
		t.Fatal(err)
	}
	iterations := 300
	if d, ok := t.Deadline(); ok && time.Until(d) < 2*time.Minute {
		iterations = 100
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range iterations {
		cmd := helperCmd(t, "crasher", s.Home(), chat.ID, strings.Join(dirs, ","))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a random number of completed writes (0 to 11): the
		// child is then somewhere inside its next write.
		n := rng.IntN(12)
		if err := waitLines(out, n, 30*time.Second); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("iteration %d: %v\nstderr:\n%s", it, err, stderr.String())
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, out)
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("iteration %d: the writer was not killed: %v\nstderr:\n%s", it, err, stderr.String())
		}
		checkWholeFiles(t, s, chat.ID, it)
		if t.Failed() {
			return
		}
	}
	// A new process cleans up what the killed ones left half-done.
	if _, err := OpenStore(s.Home()); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(s.Home(), "chats", ".*.tmp-*")); len(left) != 0 {
		t.Errorf("temp files left after reopening: %v", left)
	}
}

// waitLines reads n lines from r, failing after the deadline.
func waitLines(r io.Reader, n int, deadline time.Duration) error {
	done := make(chan error, 1)
	go func() {
		br := bufio.NewReader(r)
		for i := 0; i < n; i++ {
			if _, err := br.ReadString('\n'); err != nil {
				done <- fmt.Errorf("after %d of %d lines: %w", i, n, err)
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(deadline):
		return fmt.Errorf("no %d lines within %v", n, deadline)
	}
}

func checkWholeFiles(t *testing.T, s *Store, chatID string, it int) {
	t.Helper()
	if _, err := s.Load(chatID); err != nil {
		t.Errorf("iteration %d: the chat rewritten by the killed writer: %v", it, err)
	}
	files, err := filepath.Glob(filepath.Join(s.Home(), "chats", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("iteration %d: %v", it, err)
			continue
		}
		if len(data) == 0 {
			t.Errorf("iteration %d: %s is empty", it, f)
			continue
		}
		m, err := ParseMeta(data)
		if err != nil {
			t.Errorf("iteration %d: %s does not parse: %v\n%s", it, f, err, data)
			continue
		}
		if filepath.Base(f) != m.ID+".toml" {
			t.Errorf("iteration %d: %s holds chat %s", it, f, m.ID)
		}
	}
}
