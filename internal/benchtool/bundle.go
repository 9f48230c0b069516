package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/internal/benchtool/flood"
	"github.com/acpmux/acpmux-tui/sessions"
)

// bundleBench is `benchtool bundle-50mb BIN WORK`: a Claude Code chat whose
// session log is mb megabytes of JSONL (each line a user message quoting a
// line of the standard flood) is exported by `BIN export ID -o FILE` from
// one agent home and imported by `BIN import FILE --root DIR` into a second
// one with a HOME of its own, as two separate processes with no server.
// It prints the wall time and the peak RSS (VmHWM, see measured) of
// each, and checks that the log arrived whole.
func bundleBench(bin, work string, mb float64) error {
	if err := os.MkdirAll(work, 0o700); err != nil {
		return err
	}
	work, err := filepath.EvalSymlinks(work)
	if err != nil {
		return err
	}
	proj := filepath.Join(work, "src", "app")
	for _, d := range []string{proj, filepath.Join(work, "user1"), filepath.Join(work, "user2")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	store, err := sessions.OpenStore(filepath.Join(work, "home1"))
	if err != nil {
		return err
	}
	sid := "0b7e5a1c-2d3f-4a5b-8c9d-0e1f2a3b4c5d"
	chat, err := store.Create(sessions.NewChat{Name: "bench", Harness: "claude", Cwd: proj, AgentSessionID: sid})
	if err != nil {
		return err
	}
	project := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, proj)
	log := filepath.Join(work, "user1", ".claude", "projects", project, sid+".jsonl")
	size, err := writeSessionLog(log, int64(mb*(1<<20)))
	if err != nil {
		return err
	}
	out := filepath.Join(work, "bench.acpmux.tgz")
	env := func(home, user string) []string {
		return []string{"ACPMUX_HOME=" + filepath.Join(work, home), "ACPMUX_CONFIG=" + filepath.Join(work, "none.toml"),
			"HOME=" + filepath.Join(work, user), "PATH=/usr/bin:/bin"}
	}
	expTime, expRSS, err := measured(env("home1", "user1"), bin, "export", chat.ID, "-o", out)
	if err != nil {
		return err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	impTime, impRSS, err := measured(env("home2", "user2"), bin, "import", out, "--root", filepath.Join(work, "src"))
	if err != nil {
		return err
	}
	got, err := os.Stat(filepath.Join(work, "user2", ".claude", "projects", project, sid+".jsonl"))
	if err != nil || got.Size() != size {
		return fmt.Errorf("the imported session log is not whole: %v", err)
	}
	fmt.Printf("conversation_bytes=%d\nbundle_bytes=%d\n", size, fi.Size())
	fmt.Printf("export_seconds=%.3f\nexport_peak_rss_bytes=%d\n", expTime.Seconds(), expRSS)
	fmt.Printf("import_seconds=%.3f\nimport_peak_rss_bytes=%d\n", impTime.Seconds(), impRSS)
	return nil
}

// writeSessionLog writes at least size bytes of Claude Code session log
// lines to path, and returns how many it wrote.
func writeSessionLog(path string, size int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	pr, pw := io.Pipe()
	go func() {
		_, err := flood.Write(pw, size)
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	text := bufio.NewReaderSize(pr, 64<<10)
	var n int64
	for n < size {
		line, err := text.ReadString('\n')
		if err != nil {
			break
		}
		quoted, _ := json.Marshal(strings.TrimSuffix(line, "\n"))
		k, err := fmt.Fprintf(w, `{"type":"user","message":{"role":"user","content":%s}}`+"\n", quoted)
		if err != nil {
			return n, err
		}
		n += int64(k)
	}
	return n, w.Flush()
}

// measured runs bin with args and env, and returns its wall time and its
// peak RSS in bytes: the VmHWM of its /proc status (its high-water mark
// since exec), read every millisecond until it exits. The kernel's
// ru_maxrss is no use here: a child shares this process's memory until it
// execs, and that is counted in it.
func measured(env []string, bin string, args ...string) (time.Duration, int64, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	var peak int64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if hwm := vmHWM(status); hwm > peak {
			peak = hwm
		}
		select {
		case err := <-done:
			took := time.Since(start)
			if err != nil {
				return 0, 0, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
			}
			return took, peak, nil
		case <-tick.C:
		}
	}
}

// vmHWM reads the VmHWM line of a /proc status file, in bytes; 0 if none
// (the process has gone, or has not yet exec'd into its own memory).
func vmHWM(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb * 1024
		}
	}
	return 0
}
