package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPagesOfAGoProcess builds a small Go program, starts it, and reads
// its resident pages: the runtime's code runs in every Go process, so its
// package must show, and the program's own function it ran.
func TestPagesOfAGoProcess(t *testing.T) {
	dir := t.TempDir()
	src := "package main\n\nimport (\"fmt\"; \"os\")\n\nfunc main() { fmt.Println(\"ready\"); os.Stdin.Read(make([]byte, 1)) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module pagesprobe\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probe")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the probe: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	// The read returns once the probe printed "ready" (or exited: EOF).
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("waiting for the probe to print ready: got %q, %v", line, err)
	}
	var out bytes.Buffer
	if err := pages(cmd.Process.Pid, bin, &out); err != nil {
		t.Fatal(err)
	}
	kb := map[string]float64{}
	for line := range strings.Lines(out.String()) {
		f := strings.Fields(line)
		if len(f) == 4 {
			kb[f[0]+" "+f[3]], _ = strconv.ParseFloat(f[1], 64)
		}
	}
	for _, k := range []string{"section .text", "package runtime", "package main", "package fmt"} {
		if kb[k] <= 0 {
			t.Errorf("no resident bytes for %s in:\n%s", k, out.String())
		}
	}
}

func TestSymPackage(t *testing.T) {
	for name, want := range map[string]string{
		"runtime.mallocgc":                       "runtime",
		"github.com/a/b/c.(*T).M":                "github.com/a/b/c",
		"slices.Sort[go.shape.int]":              "slices",
		"type:*github.com/a/b.T":                 "(type)",
		"go:string.*":                            "(go)",
		"github.com/a/b.init.func1":              "github.com/a/b",
		"gopkg.in/x.v3/y.F":                      "gopkg.in/x.v3/y",
		"github.com/a/b.F[github.com/c/d.x.y.z]": "github.com/a/b",
	} {
		if got := symPackage(name); got != want {
			t.Errorf("symPackage(%q) = %q, want %q", name, got, want)
		}
	}
}
