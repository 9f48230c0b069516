package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/sessions"
)

// binary is acpmux-tui built from this package, for the server that
// BenchmarkLs1000Server runs. TestMain builds it only when benchmarks are
// asked for (-bench): the tests here call the package in process, and the
// tests of the built binary are in e2e/.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	if flag.Lookup("test.bench").Value.String() == "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "acpmux-tui-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "acpmux-tui")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build acpmux-tui:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// lsWorld is the world of the in-process ls benchmarks: an agent home under
// a canonical temp folder, with an empty PATH (the default harness is shell).
type lsWorld struct {
	root string // canonical temp folder holding everything
	home string // ACPMUX_HOME
}

// home1000 is a test world of 1,000 shell chats with two folders each,
// and its environment for an in-process command.
func home1000(b *testing.B) (*lsWorld, func(string) string) {
	b.Helper()
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	c := &lsWorld{root: root, home: filepath.Join(root, "agent")}
	var dirs []string
	for _, d := range []string{"user", "bin", "a", "b"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			b.Fatal(err)
		}
		if d == "a" || d == "b" {
			dirs = append(dirs, filepath.Join(root, d))
		}
	}
	s, err := sessions.OpenStore(c.home)
	if err != nil {
		b.Fatal(err)
	}
	for range 1000 {
		if _, err := s.Create(sessions.NewChat{Harness: "shell", AdditionalDirectories: dirs}); err != nil {
			b.Fatal(err)
		}
	}
	vars := map[string]string{
		"ACPMUX_HOME":   c.home,
		"ACPMUX_CONFIG": filepath.Join(root, "config.toml"),
		"HOME":          filepath.Join(root, "user"),
		"PATH":          filepath.Join(root, "bin"),
		"SHELL":         "/bin/sh",
	}
	return c, func(k string) string { return vars[k] }
}

// BenchmarkLsJSON1000 runs `ls --json` in process over a home of 1,000
// chats: paths, config, store, harness table, every file parsed and printed.
func BenchmarkLsJSON1000(b *testing.B) {
	_, getenv := home1000(b)
	var out countWriter
	b.ReportAllocs()
	for b.Loop() {
		a := &app{stdout: &out, stderr: io.Discard, getenv: getenv}
		if err := dispatch(a, []string{"ls", "--json"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(out.n)/float64(b.N), "bytes-out/op")
}

type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// BenchmarkLs1000Server runs `ls` and `ls --json` in process over a home of
// 1,000 chats while its server runs: the dial, the server's answer and
// what this side makes of it, as `ls` pays it when a server is up.
func BenchmarkLs1000Server(b *testing.B) {
	c, getenv := home1000(b)
	conn, err := client.EnsureServer(c.home, binary)
	if err != nil {
		b.Fatal(err)
	}
	conn.Close()
	b.Cleanup(func() { client.KillServer(context.Background(), c.home) })
	for _, args := range [][]string{{"ls"}, {"ls", "--json"}} {
		b.Run(strings.Join(args, " "), func(b *testing.B) {
			var out countWriter
			b.ReportAllocs()
			for b.Loop() {
				a := &app{stdout: &out, stderr: io.Discard, getenv: getenv}
				if err := dispatch(a, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
