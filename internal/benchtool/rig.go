package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/charmbracelet/x/ansi"
)

// The pane size every benchmark uses, the same as the tmux side of
// scripts/bench.
const (
	benchCols = 160
	benchRows = 45
)

// rig is a mux over a throwaway agent home with the benchmark's harnesses.
type rig struct {
	home  string
	store *sessions.Store
	cfg   *config.Config
	mux   *mux.Mux
}

// newRig opens a temporary agent home and a mux whose harness table has the
// given harnesses (all plain pty harnesses) beside the built-ins.
func newRig(harnesses map[string]config.HarnessConfig) (*rig, error) {
	home, err := os.MkdirTemp("", "acpmux-bench-home")
	if err != nil {
		return nil, fmt.Errorf("make agent home: %w", err)
	}
	store, err := sessions.OpenStore(home)
	if err != nil {
		os.RemoveAll(home)
		return nil, fmt.Errorf("open store: %w", err)
	}
	cfg := config.Defaults()
	cfg.Harness = harnesses
	table, err := harness.NewTable(cfg)
	if err != nil {
		os.RemoveAll(home)
		return nil, fmt.Errorf("harness table: %w", err)
	}
	m := mux.New(mux.Options{
		Store:  store,
		Table:  table,
		Config: cfg,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Grace:  time.Second,
	})
	return &rig{home: home, store: store, cfg: cfg, mux: m}, nil
}

// close stops every harness and removes the agent home.
func (r *rig) close() {
	r.mux.Close()
	os.RemoveAll(r.home)
}

// create makes a chat of that harness with no project.
func (r *rig) create(harnessName string) (string, error) {
	meta, err := r.store.Create(sessions.NewChat{Harness: harnessName})
	if err != nil {
		return "", fmt.Errorf("create chat: %w", err)
	}
	return meta.ID, nil
}

// start starts a chat at the benchmark size and reports a start that failed.
func (r *rig) start(id string) error {
	if err := r.mux.Start(id, benchCols, benchRows); err != nil {
		return fmt.Errorf("start chat %s: %w", id, err)
	}
	return nil
}

// catHarness is a plain pty harness that prints file and exits.
func catHarness(file string) config.HarnessConfig {
	return config.HarnessConfig{Command: "/bin/cat", Args: []string{file}, Kind: harness.KindPlain, Transport: harness.TransportPty}
}

// lastLine returns the last non-empty line of file as a terminal shows it:
// escape sequences removed, trailing blanks trimmed.
func lastLine(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	const tail = 64 * 1024
	off := max(st.Size()-tail, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return "", fmt.Errorf("read %s: %w", file, err)
	}
	buf = bytes.TrimRight(buf, "\r\n")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	}
	line := strings.TrimRight(ansi.Strip(string(buf)), " ")
	if line == "" {
		return "", fmt.Errorf("%s: no last line", file)
	}
	return line, nil
}

// countLines counts the newlines in file.
func countLines(file string) (int, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	return bytes.Count(data, []byte{'\n'}), nil
}

// checkScreen fails unless want is the last non-blank line of the chat's
// live screen: the whole output reached the emulator.
func (r *rig) checkScreen(id, want string) error {
	lines := r.mux.PlainLines(id)
	got := ""
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			got = strings.TrimRight(lines[i], " ")
			break
		}
	}
	if got != want {
		return fmt.Errorf("chat %s: last screen line is %q, want the file's last line %q", id, got, want)
	}
	return nil
}

// rssBytes returns this process's resident set size from /proc/self/status.
func rssBytes() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read /proc/self/status: %w", err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb * 1024, nil
				}
			}
			return 0, fmt.Errorf("VmRSS line %q not understood", strings.TrimSpace(line))
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}
