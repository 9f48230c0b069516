//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// probeEnv, when set, makes the test binary a probe: it reads a probeSpec
// (JSON) from the variable, does what it says, prints a probeReport (JSON)
// and exits. Landlock cannot be undone, so every restricted check runs in a
// probe process of its own.
const probeEnv = "ACPMUX_SANDBOX_PROBE"

// opKind names an operation the probe tries.
type opKind string

const (
	opWrite    opKind = "write"    // create or truncate a file and write to it
	opRead     opKind = "read"     // read a file
	opList     opKind = "list"     // list a folder
	opMkdir    opKind = "mkdir"    // make a folder
	opTruncate opKind = "truncate" // open an existing file with O_TRUNC
)

type probeOp struct {
	Kind opKind `json:"kind"`
	Path string `json:"path"`
}

type probeSpec struct {
	Bound    Bound     `json:"bound"`
	Restrict bool      `json:"restrict"`
	Prove    bool      `json:"prove"`
	Ops      []probeOp `json:"ops"`
	// ShellWrites are files the probe asks sh (a child, so across exec)
	// to write, after Restrict.
	ShellWrites []string `json:"shellWrites"`
	// ThreadWrites is a folder that goroutines locked to OS threads
	// started before Restrict each try to write a file in, after it.
	ThreadWrites string `json:"threadWrites"`
}

type opResult struct {
	probeOp
	// Err is "" on success, "EACCES" for a Landlock denial, else the error.
	Err string `json:"err"`
}

type probeReport struct {
	RestrictErr string     `json:"restrictErr"`
	ProveErr    string     `json:"proveErr"`
	Results     []opResult `json:"results"`
	// ShellResults holds, for each ShellWrites entry, "" or sh's failure.
	ShellResults []string `json:"shellResults"`
	// ThreadResults holds each locked thread's ThreadWrites outcome.
	ThreadResults []string `json:"threadResults"`
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(probeEnv); spec != "" {
		os.Exit(runProbe(spec))
	}
	os.Exit(m.Run())
}

func runProbe(specJSON string) int {
	var spec probeSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "probe: bad spec:", err)
		return 2
	}
	var rep probeReport
	threads := startThreads(spec.ThreadWrites)
	if spec.Restrict {
		if err := spec.Bound.Restrict(); err != nil {
			rep.RestrictErr = err.Error()
		}
	}
	if spec.Prove {
		if err := spec.Bound.Prove(); err != nil {
			rep.ProveErr = err.Error()
		}
	}
	for _, op := range spec.Ops {
		rep.Results = append(rep.Results, opResult{probeOp: op, Err: errName(doOp(op))})
	}
	rep.ThreadResults = threads()
	for _, p := range spec.ShellWrites {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := exec.CommandContext(ctx, "sh", "-c", `echo probe > "$1"`, "sh", p).CombinedOutput()
		cancel()
		res := ""
		if err != nil {
			res = fmt.Sprintf("%v: %s", err, bytes.TrimSpace(out))
		}
		rep.ShellResults = append(rep.ShellResults, res)
	}
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return 2
	}
	return 0
}

// startThreads starts goroutines locked to OS threads of their own that wait,
// then each write a file in dir; the returned func lets them go and collects
// the outcomes. With dir "" it does nothing.
func startThreads(dir string) func() []string {
	if dir == "" {
		return func() []string { return nil }
	}
	const n = 8
	var ready sync.WaitGroup
	start := make(chan struct{})
	results := make([]chan string, n)
	for i := range n {
		ready.Add(1)
		results[i] = make(chan string, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			ready.Done()
			<-start
			results[i] <- errName(os.WriteFile(filepath.Join(dir, fmt.Sprintf("thread-%d", i)), nil, 0o600))
		}()
	}
	ready.Wait()
	return func() []string {
		close(start)
		var out []string
		for _, r := range results {
			out = append(out, <-r)
		}
		return out
	}
}

func doOp(op probeOp) error {
	switch op.Kind {
	case opWrite:
		return os.WriteFile(op.Path, []byte("probe"), 0o600)
	case opRead:
		_, err := os.ReadFile(op.Path)
		return err
	case opList:
		_, err := os.ReadDir(op.Path)
		return err
	case opMkdir:
		return os.Mkdir(op.Path, 0o700)
	case opTruncate:
		f, err := os.OpenFile(op.Path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	return fmt.Errorf("unknown op %q", op.Kind)
}

func errName(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, syscall.EACCES):
		return "EACCES"
	}
	return err.Error()
}

// runProbeProcess starts the test binary as a probe and returns its report.
func runProbeProcess(t *testing.T, spec probeSpec) probeReport {
	t.Helper()
	specJSON, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	// The race runtime sleeps a second at exit unless told not to.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(os.Environ(), probeEnv+"="+string(specJSON), "GORACE="+gorace)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("probe: %v\nstderr:\n%s", err, stderr.String())
	}
	var rep probeReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("probe report: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return rep
}

// requireLandlock skips when the kernel has no Landlock, except under CI,
// where that is a failure.
func requireLandlock(t *testing.T) {
	t.Helper()
	abi, err := ABI()
	if err == nil && abi >= MinABI {
		return
	}
	msg := fmt.Sprintf("no usable Landlock here (ABI %d, err %v; need %d)", abi, err, MinABI)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// layout is a set of real folders a probe works in.
type layout struct {
	root, chat, added, files, addedFile, outside, home, secret, link string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := layout{
		root:    root,
		chat:    filepath.Join(root, "chat"),
		added:   filepath.Join(root, "added"),
		files:   filepath.Join(root, "files"),
		outside: filepath.Join(root, "outside"),
		home:    filepath.Join(root, "home"),
	}
	l.addedFile = filepath.Join(l.files, "added.json")
	l.secret = filepath.Join(l.home, "secret.txt")
	l.link = filepath.Join(l.chat, "link")
	for _, d := range []string{l.chat, l.added, l.files, l.outside, l.home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{l.addedFile, l.secret, filepath.Join(l.outside, "readme.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink inside a writable folder to a folder outside the bound.
	if err := os.Symlink(l.outside, l.link); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l layout) bound() Bound {
	return Bound{
		Writable:      []string{l.chat, l.added},
		WritableFiles: []string{l.addedFile},
		Hidden:        []string{l.home},
	}
}

// etcFile is a file of /etc every machine has.
func etcFile(t *testing.T) string {
	for _, f := range []string{"/etc/hostname", "/etc/passwd", "/etc/os-release"} {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	t.Skip("no readable file in /etc")
	return ""
}

// wantOps runs ops and names the outcome each must have ("" or "EACCES").
type wantOp struct {
	op   probeOp
	want string
}

func (l layout) ops(t *testing.T) []wantOp {
	return []wantOp{
		{probeOp{opWrite, filepath.Join(l.chat, "a.txt")}, ""},
		{probeOp{opMkdir, filepath.Join(l.chat, "sub")}, ""},
		{probeOp{opWrite, filepath.Join(l.added, "b.txt")}, ""},
		{probeOp{opWrite, l.addedFile}, ""},
		{probeOp{opWrite, filepath.Join(l.files, "other.json")}, "EACCES"},
		{probeOp{opWrite, filepath.Join(l.outside, "c.txt")}, "EACCES"},
		{probeOp{opWrite, filepath.Join(l.root, "d.txt")}, "EACCES"},
		{probeOp{opWrite, filepath.Join(l.home, "e.txt")}, "EACCES"},
		{probeOp{opRead, l.secret}, "EACCES"},
		{probeOp{opList, l.home}, "EACCES"},
		{probeOp{opWrite, filepath.Join(l.link, "f.txt")}, "EACCES"},
		{probeOp{opRead, filepath.Join(l.outside, "readme.txt")}, ""},
		{probeOp{opRead, filepath.Join(l.link, "readme.txt")}, ""},
		{probeOp{opRead, etcFile(t)}, ""},
		{probeOp{opTruncate, "/dev/null"}, ""},
	}
}

func runOps(t *testing.T, b Bound, restrict, prove bool, ops []wantOp, everyOK bool) probeReport {
	t.Helper()
	spec := probeSpec{Bound: b, Restrict: restrict, Prove: prove}
	for _, o := range ops {
		spec.Ops = append(spec.Ops, o.op)
	}
	rep := runProbeProcess(t, spec)
	if len(rep.Results) != len(ops) {
		t.Fatalf("probe ran %d ops, want %d", len(rep.Results), len(ops))
	}
	for i, o := range ops {
		want := o.want
		if everyOK {
			want = ""
		}
		if got := rep.Results[i].Err; got != want {
			t.Errorf("%s %s: got %q, want %q", o.op.Kind, o.op.Path, got, want)
		}
	}
	return rep
}

func TestABI(t *testing.T) {
	abi, err := ABI()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("ABI: %v", err)
		}
		t.Skipf("no Landlock on this kernel: %v", err)
	}
	if abi < 1 {
		t.Fatalf("ABI() = %d, want >= 1", abi)
	}
	t.Logf("landlock ABI %d", abi)
}

func TestRestrictBoundsWritesAndHides(t *testing.T) {
	requireLandlock(t)
	l := newLayout(t)
	rep := runOps(t, l.bound(), true, true, l.ops(t), false)
	if rep.RestrictErr != "" {
		t.Fatalf("Restrict: %s", rep.RestrictErr)
	}
	if rep.ProveErr != "" {
		t.Errorf("Prove: %s", rep.ProveErr)
	}
}

// TestWithoutRestrictEverythingWorks shows the same probe is not denied
// when unrestricted, so the denials above come from Restrict; and that
// Prove then fails.
func TestWithoutRestrictEverythingWorks(t *testing.T) {
	l := newLayout(t)
	rep := runOps(t, l.bound(), false, true, l.ops(t), true)
	if rep.ProveErr == "" {
		t.Error("Prove passed without Restrict")
	}
}

func TestRestrictFailsClosed(t *testing.T) {
	requireLandlock(t)
	l := newLayout(t)
	missing := filepath.Join(l.root, "missing")
	linked := filepath.Join(l.root, "linked")
	if err := os.Symlink(l.outside, linked); err != nil {
		t.Fatal(err)
	}
	hiddenLink := filepath.Join(l.root, "hiddenlink")
	if err := os.Symlink(l.home, hiddenLink); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		bound Bound
		want  string // in the error
	}{
		{"missing writable folder", Bound{Writable: []string{l.chat, missing}}, missing},
		{"writable folder is a symlink", Bound{Writable: []string{linked}}, linked + ": is a symlink"},
		{"writable folder is a file", Bound{Writable: []string{l.addedFile}}, l.addedFile},
		{"missing writable file", Bound{WritableFiles: []string{missing}}, missing},
		{"writable file is a folder", Bound{WritableFiles: []string{l.chat}}, l.chat},
		{"hidden folder is a symlink", Bound{Writable: []string{l.chat}, Hidden: []string{hiddenLink}}, hiddenLink},
		{"hidden inside writable", Bound{Writable: []string{l.root}, Hidden: []string{l.home}}, l.home},
		{"relative path", Bound{Writable: []string{"chat"}}, `"chat"`},
		{"writable root", Bound{Writable: []string{"/"}}, "whole filesystem"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// After a failed Restrict nothing is restricted: the
			// probe can still write outside and read the hidden file.
			ops := []wantOp{
				{probeOp{opWrite, filepath.Join(l.outside, strings.ReplaceAll(c.name, " ", "-"))}, ""},
				{probeOp{opRead, l.secret}, ""},
			}
			rep := runOps(t, c.bound, true, false, ops, false)
			if !strings.Contains(rep.RestrictErr, c.want) {
				t.Errorf("Restrict error %q does not name %q", rep.RestrictErr, c.want)
			}
		})
	}
}

// TestRestrictHoldsAcrossExec checks that a program the restricted process
// starts (here /bin/sh, which the probe runs after Restrict) is bound too.
func TestRestrictHoldsAcrossExec(t *testing.T) {
	requireLandlock(t)
	l := newLayout(t)
	rep := runProbeProcess(t, probeSpec{
		Bound:       l.bound(),
		Restrict:    true,
		ShellWrites: []string{filepath.Join(l.chat, "from-sh"), filepath.Join(l.outside, "from-sh")},
	})
	if rep.RestrictErr != "" {
		t.Fatalf("Restrict: %s", rep.RestrictErr)
	}
	if len(rep.ShellResults) != 2 {
		t.Fatalf("shell results %v, want 2", rep.ShellResults)
	}
	if rep.ShellResults[0] != "" {
		t.Errorf("sh could not write in the chat folder: %s", rep.ShellResults[0])
	}
	if rep.ShellResults[1] == "" {
		t.Error("sh wrote outside the bound")
	}
	if _, err := os.Stat(filepath.Join(l.outside, "from-sh")); err == nil {
		t.Error("from-sh exists outside the bound")
	}
}

// TestRestrictHoldsOnEveryThread checks that threads which existed before
// Restrict are bound too, not only the one that called it.
func TestRestrictHoldsOnEveryThread(t *testing.T) {
	requireLandlock(t)
	l := newLayout(t)
	rep := runProbeProcess(t, probeSpec{Bound: l.bound(), Restrict: true, ThreadWrites: l.outside})
	if rep.RestrictErr != "" {
		t.Fatalf("Restrict: %s", rep.RestrictErr)
	}
	if len(rep.ThreadResults) == 0 {
		t.Fatal("no thread results")
	}
	for i, r := range rep.ThreadResults {
		if r != "EACCES" {
			t.Errorf("thread %d writing outside: got %q, want EACCES", i, r)
		}
	}
	// And unrestricted, the same threads can write there.
	rep = runProbeProcess(t, probeSpec{ThreadWrites: l.outside})
	for i, r := range rep.ThreadResults {
		if r != "" {
			t.Errorf("unrestricted thread %d: %q", i, r)
		}
	}
}

func TestSummary(t *testing.T) {
	cases := []struct {
		b    Bound
		want string
	}{
		{Bound{Writable: []string{"/a", "/b", "/c"}, WritableFiles: []string{"/f"}}, "landlock · writes: 3 folders, 1 file"},
		{Bound{Writable: []string{"/a"}, Hidden: []string{"/h"}}, "landlock · writes: 1 folder, 0 files · hides: 1 folder"},
	}
	for _, c := range cases {
		if got := c.b.Summary(); got != c.want {
			t.Errorf("Summary() = %q, want %q", got, c.want)
		}
	}
}

func TestWithin(t *testing.T) {
	cases := []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a/b", false},
		{"/x", "/", true},
	}
	for _, c := range cases {
		if got := within(c.p, c.dir); got != c.want {
			t.Errorf("within(%q, %q) = %v, want %v", c.p, c.dir, got, c.want)
		}
	}
}
