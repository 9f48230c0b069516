package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/benchtool/flood"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name, line string
		want       uint64
		bad        bool
	}{
		{name: "plain", line: "42 (acpmux-tui) S 1 42 42 0 -1 4194560 100 0 0 0 17 5 0 0 20 0 9 0 1234 0 0", want: 22},
		{name: "spaces and parens in the name", line: "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 99", want: 7},
		{name: "no name", line: "7 a R 1", bad: true},
		{name: "too short", line: "7 (a) R 1 2 3", bad: true},
		{name: "not numbers", line: "7 (a) R 1 7 7 0 -1 0 0 0 0 0 x y 0 0", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStat(tt.line)
			if tt.bad {
				if err == nil {
					t.Fatalf("parseProcStat(%q) = %d, want an error", tt.line, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseProcStat(%q) = %d, %v; want %d", tt.line, got, err, tt.want)
			}
		})
	}
}

func TestProcTicksOfThisProcess(t *testing.T) {
	if _, err := procTicks(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

func TestParseSmapsRollup(t *testing.T) {
	const rollup = `55d0c0a00000-7ffd3b5fe000 ---p 00000000 00:00 0                          [rollup]
Rss:               13688 kB
Pss:                9273 kB
Pss_Dirty:          7000 kB
Pss_Anon:           6000 kB
Shared_Clean:       4000 kB
`
	pss, rss, err := parseSmapsRollup(rollup)
	if err != nil || pss != 9273*1024 || rss != 13688*1024 {
		t.Fatalf("parseSmapsRollup = %d, %d, %v; want %d, %d", pss, rss, err, 9273*1024, 13688*1024)
	}
	if _, _, err := parseSmapsRollup("Rss: 1 kB\n"); err == nil {
		t.Fatal("a rollup without Pss was read")
	}
	if _, _, err := memoryOf(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

func TestPercentile(t *testing.T) {
	var times []time.Duration
	for i := 100; i >= 1; i-- {
		times = append(times, time.Duration(i)*time.Millisecond)
	}
	for _, tt := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 50 * time.Millisecond}, {0.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}, {0.001, time.Millisecond}} {
		if got := percentile(times, tt.p); got != tt.want {
			t.Errorf("percentile(1..100 ms, %g) = %s, want %s", tt.p, got, tt.want)
		}
	}
	if times[0] != 100*time.Millisecond {
		t.Fatal("percentile sorted its argument")
	}
	if got := percentile([]time.Duration{7}, 0.99); got != 7 {
		t.Fatalf("percentile of one = %s", got)
	}
}

func TestScreenRows(t *testing.T) {
	screen := "\x1b[1mfirst\x1b[0m   \nabc  \n\n   \n"
	if got := lastRow(screen); got != "abc" {
		t.Fatalf("lastRow = %q, want abc", got)
	}
	if got := lastRow(""); got != "" {
		t.Fatalf("lastRow of nothing = %q", got)
	}
	for _, tt := range []struct {
		rows []string
		want bool
	}{
		{[]string{"abc", "abc", ""}, true},
		{[]string{"xyz", "", "abc", "abc"}, true},
		{[]string{"abc", ""}, false},         // echoed, not printed back yet
		{[]string{"abc", "abcd", ""}, false}, // another line
		{[]string{"abcd", "abc", "abc", "a"}, false},
	} {
		if got := lineEchoed(tt.rows, "abc"); got != tt.want {
			t.Errorf("lineEchoed(%q, abc) = %v, want %v", tt.rows, got, tt.want)
		}
	}
}

func TestTmuxControlBlocks(t *testing.T) {
	r, w := io.Pipe()
	tc := &tmuxControl{blocks: make(chan tmuxBlock, 16), output: make(chan struct{}, 1), done: make(chan struct{})}
	go tc.readLoop(r)
	go func() {
		io.WriteString(w, "%begin 1 1 0\n%end 1 1 0\n"+
			"%output %0 abc\n%output %0 def\n"+
			"%begin 1 2 1\nline one\n%line two\n%end 1 2 1\n"+
			"%session-changed $0 x\n"+
			"%begin 1 3 1\nunknown command: nope\n%error 1 3 1\n")
		w.Close()
	}()
	// The first block (flags 0) answers no command of this client, so it
	// is not handed over.
	want := []tmuxBlock{{lines: []string{"line one", "%line two"}}, {lines: []string{"unknown command: nope"}, err: true}}
	for i, wb := range want {
		b, err := tc.next()
		if err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		if strings.Join(b.lines, "|") != strings.Join(wb.lines, "|") || b.err != wb.err {
			t.Fatalf("block %d = %+v, want %+v", i, b, wb)
		}
	}
	select {
	case <-tc.output:
	default:
		t.Fatalf("no %s line was reported", "%output")
	}
	<-tc.done
}

func TestKeysAreTypable(t *testing.T) {
	for i := range 2 * len(keyChars) {
		k := keyAt(i)
		if !('a' <= k && k <= 'z' || '0' <= k && k <= '9') {
			t.Fatalf("key %d is %q", i, k)
		}
	}
	if keysPerLine >= benchCols {
		t.Fatalf("%d keys a line wrap a %d-column screen", keysPerLine, benchCols)
	}
}

// benchWorld builds acpmux-tui and writes a 300 kB flood into a folder of
// the test's, for the rows' small runs; the rigs set ACPMUX_HOME and
// ACPMUX_CONFIG for the server and the TUI, and they are put back.
func benchWorld(t *testing.T) (dir, binary, floodFile string) {
	t.Helper()
	dir = t.TempDir()
	binary = filepath.Join(dir, "acpmux-tui")
	build := exec.Command("go", "build", "-o", binary, "github.com/acpmux/acpmux-tui")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build acpmux-tui: %v\n%s", err, out)
	}
	floodFile = filepath.Join(dir, "flood.txt")
	f, err := os.Create(floodFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flood.Write(f, 300_000); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Setenv("ACPMUX_HOME", "")
	t.Setenv("ACPMUX_CONFIG", "")
	return dir, binary, floodFile
}

// TestServerBenchesRun runs the server benchmarks briefly against the real
// binary: each must find what it waits for and end with the server gone.
func TestServerBenchesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acpmux-tui and runs a server")
	}
	dir, binary, file := benchWorld(t)

	home := func(name string) string { return filepath.Join(dir, "homes", name) }
	if err := serverThroughput(binary, home("throughput"), file); err != nil {
		t.Fatal("server-throughput:", err)
	}
	if err := serverKeys(binary, home("keys"), keysPerLine+10, 0); err != nil {
		t.Fatal("server-keys:", err)
	}
	if err := ptyKeys(keysPerLine+10, 0); err != nil {
		t.Fatal("keys-pty:", err)
	}
	if err := heldBench(binary, home("held"), 300, 5); err != nil {
		t.Fatal("server-held:", err)
	}
	if tmuxBin, err := exec.LookPath("tmux"); err == nil {
		t.Setenv("TMUX", "")
		sock := "acpmux-benchtool-test-" + strconv.Itoa(os.Getpid())
		t.Cleanup(func() {
			// tmux leaves its socket file behind after kill-server.
			tmp := os.Getenv("TMUX_TMPDIR")
			if tmp == "" {
				tmp = "/tmp"
			}
			os.Remove(filepath.Join(tmp, "tmux-"+strconv.Itoa(os.Getuid()), sock))
		})
		if err := tmuxKeys(tmuxBin, sock, keysPerLine+10, 0); err != nil {
			t.Fatal("keys-tmux:", err)
		}
		if err := keysSide(binary, home("side"), tmuxBin, sock, keysPerLine+10, 0, binary, home("side2")); err != nil {
			t.Fatal("keys-side:", err)
		}
		// The command-path rows at a small scale: each checks what every
		// command printed (n chats listed, n windows).
		if err := ls1000(binary, home("ls"), tmuxBin, sock, 12, 1); err != nil {
			t.Fatal("ls-1000:", err)
		}
		if err := new1000(binary, home("new"), tmuxBin, sock, 5); err != nil {
			t.Fatal("new-1000:", err)
		}
		// The rows beside tmux with a client attached, small: each checks
		// that every chat and pane got where it waits for. scale-100 holds
		// 2.5 s: its chats print a line a second, and it fails unless the
		// TUI and tmux's client drew one meanwhile.
		if err := scale100(binary, home("scale"), tmuxBin, sock, 2, 2.5); err != nil {
			t.Fatal("scale-100:", err)
		}
		if err := memoryIdle(binary, home("memory-idle"), tmuxBin, sock, 2); err != nil {
			t.Fatal("memory-idle:", err)
		}
		if err := firstFrame1000(binary, home("first-frame"), tmuxBin, sock, 12, 1); err != nil {
			t.Fatal("first-frame-1000:", err)
		}
	}
	// diff-50k small: both commands must name the changed files, and the
	// TUI's review pane must show its file list on the emulated screen.
	if err := diff50k(binary, home("diff"), 300, 6, 1); err != nil {
		t.Fatal("diff-50k:", err)
	}
	if err := serverMemory(binary, home("memory"), 2); err != nil {
		t.Fatal("server-memory:", err)
	}
	if err := serverIdle(binary, home("idle"), 2, 0.2); err != nil {
		t.Fatal("server-idle:", err)
	}
	for _, h := range []string{"throughput", "keys", "memory", "idle"} {
		if _, err := os.Stat(filepath.Join(home(h), "bench-config.toml")); err != nil {
			t.Errorf("home %s: %v", h, err)
		}
	}
	if err := exec.Command("pgrep", "-f", dir).Run(); err == nil {
		t.Fatalf("a process of %s is left running", dir)
	}
}
