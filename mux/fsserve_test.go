package mux

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

// fsRig is an ACP chat on the fake agent with one additional folder, the
// root the tests aim file requests at, and a folder outside every root.
type fsRig struct {
	*acpRig
	id      string
	root    string
	outside string
}

func newFSRig(t *testing.T, maxFileBytes int64) *fsRig {
	t.Helper()
	store, err := sessions.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Harness = map[string]config.HarnessConfig{"fake": {Command: fakeACP, Transport: "acp",
		Env: map[string]string{"ACPMUX_FAKE_STATE": t.TempDir()}}}
	if maxFileBytes > 0 {
		cfg.ACP.MaxFileBytes = maxFileBytes
	}
	r := &fsRig{acpRig: newACPRigWith(t, store, cfg)}
	dirs := r.folders(2)
	r.root, r.outside = dirs[0], dirs[1]
	r.id = r.create("fake", []string{r.root}).ID
	return r
}

// ask prompts the agent with one command and returns its reply. The
// deadline only detects a hang.
func (r *fsRig) ask(text string) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	if _, err := r.mux.Prompt(ctx, r.id, text); err != nil {
		r.t.Fatalf("%s: %v", text, err)
	}
	return r.lastAgentText(r.id)
}

func (r *fsRig) file(rel, content string) string {
	r.t.Helper()
	p := filepath.Join(r.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// outsideAnswer is what the agent sees for any path outside the roots.
func outsideAnswer(verb, p string) string {
	return verb + ` error: Invalid params {"error":"path is outside the chat's folders","path":"` + p + `"}`
}

// A path outside the roots gets one answer, whether it exists, is missing,
// or is reached through ".." or a symlink: nothing about the outside shows.
func TestFSRefusalsRevealNothing(t *testing.T) {
	r := newFSRig(t, 0)
	secret := filepath.Join(r.outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.file("b/in.txt", "inside")
	for link, target := range map[string]string{
		"door": r.outside, "link.txt": secret,
		"dangling.txt": filepath.Join(r.outside, "missing.txt"),
		"relative":     "../" + filepath.Base(r.outside),
	} {
		if err := os.Symlink(target, filepath.Join(r.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	up := strings.Repeat("/..", strings.Count(r.root, "/")+1)
	reads := []string{
		r.root + "/b" + up + "/etc/passwd",
		r.root + "/b" + up + "/etc/no-such-file",
		secret,
		filepath.Join(r.outside, "missing.txt"),
		filepath.Join(r.root, "door", "secret.txt"),
		filepath.Join(r.root, "door", "missing.txt"),
		filepath.Join(r.root, "relative", "secret.txt"),
		filepath.Join(r.root, "relative", "missing.txt"),
		filepath.Join(r.root, "link.txt"),
		filepath.Join(r.root, "dangling.txt"),
		filepath.Dir(r.root),
	}
	for _, p := range reads {
		if got, want := r.ask("read "+p), outsideAnswer("read", p); got != want {
			t.Errorf("read %s:\n got %s\nwant %s", p, got, want)
		}
	}
	writes := []string{
		filepath.Join(r.root, "door", "planted.txt"),
		filepath.Join(r.root, "relative", "planted.txt"),
		filepath.Join(r.root, "link.txt"),
		filepath.Join(r.root, "dangling.txt"),
		filepath.Join(r.outside, "planted.txt"),
		r.root + "/b" + up + "/tmp/planted.txt",
	}
	for _, p := range writes {
		if got, want := r.ask("write "+p+" planted"), outsideAnswer("write", p); got != want {
			t.Errorf("write %s:\n got %s\nwant %s", p, got, want)
		}
	}
	entries, _ := os.ReadDir(r.outside)
	if len(entries) != 1 {
		t.Fatalf("a refused write left %d entries outside: %v", len(entries), entries)
	}
	if data, _ := os.ReadFile(secret); string(data) != "secret" {
		t.Fatalf("a refused write changed the file outside: %q", data)
	}
	// Inside a root a missing file may say so; the path is the agent's own.
	missing := filepath.Join(r.root, "b", "missing.txt")
	if got, want := r.ask("read "+missing), `read error: Resource not found {"error":"no such file","path":"`+missing+`"}`; got != want {
		t.Errorf("read a missing file inside:\n got %s\nwant %s", got, want)
	}
	if got := r.ask("read " + filepath.Join(r.root, "b", "..", "b", "in.txt")); got != "read: inside" {
		t.Errorf("read with a '..' that stays inside: %s", got)
	}
}

var replyCounts = regexp.MustCompile(`(\w+)=(\d+)`)

// counts parses the "key=N" pairs of a reply.
func counts(t *testing.T, reply string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, m := range replyCounts.FindAllStringSubmatch(reply, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

// refusalTexts returns the "C× TEXT" parts of a tally reply.
func refusalTexts(reply string) []string {
	var out []string
	for _, part := range strings.Split(reply, "; ")[1:] {
		if _, text, ok := strings.Cut(part, "× "); ok {
			out = append(out, text)
		}
	}
	return out
}

// The agent swaps a folder inside the root with a symlink to outside as fast
// as it can while it reads and writes through it: no read returns the file
// outside, no write lands outside.
func TestFSRaceSwapFolderForSymlink(t *testing.T) {
	r := newFSRig(t, 0)
	const secret = "SECRET-7f3a"
	if err := os.WriteFile(filepath.Join(r.outside, "secret.txt"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.root, "d")
	const n = 10000
	allowed := func(texts []string) {
		t.Helper()
		for _, text := range texts {
			if text != agent.RefusalOutside && text != "no such file" {
				t.Errorf("unexpected refusal %q", text)
			}
		}
	}

	reply := r.ask("race-read " + dir + " " + r.outside + " " + strconv.Itoa(n))
	t.Logf("%s", reply)
	c := counts(t, reply)
	if c["leaked"] != 0 || strings.Contains(reply, secret) {
		t.Fatalf("a read returned the file outside: %s", reply)
	}
	if c["reads"] != n || c["inside"]+c["refused"] != n || c["inside"] == 0 || c["refused"] == 0 || c["swaps"] == 0 {
		t.Fatalf("the race did not run both ways: %s", reply)
	}
	allowed(refusalTexts(reply))

	reply = r.ask("race-write " + dir + " " + r.outside + " " + strconv.Itoa(n))
	t.Logf("%s", reply)
	c = counts(t, reply)
	if c["writes"] != n || c["ok"] == 0 || c["refused"] == 0 {
		t.Fatalf("the race did not run both ways: %s", reply)
	}
	allowed(refusalTexts(reply))
	entries, _ := os.ReadDir(r.outside)
	if len(entries) != 1 || entries[0].Name() != "secret.txt" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("writes landed outside: %v", names)
	}
	if data, _ := os.ReadFile(filepath.Join(r.outside, "secret.txt")); string(data) != secret {
		t.Fatalf("the file outside changed: %q", data)
	}
	inside, _ := os.ReadDir(dir)
	for _, e := range inside {
		if name := e.Name(); name != "secret.txt" && !regexp.MustCompile(`^planted-\d\.txt$`).MatchString(name) {
			t.Errorf("left behind in the folder: %s", name)
		}
	}
}

// A FIFO, a device, a folder and a file over the limit are refused at once,
// with a clear reason.
func TestFSSpecialAndBigFilesRefused(t *testing.T) {
	r := newFSRig(t, 0)
	fifo := filepath.Join(r.root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	notRegular := func(verb, p string) string {
		return verb + ` error: Invalid params {"error":"not a regular file","path":"` + p + `"}`
	}
	cases := []struct{ prompt, want string }{
		{"read " + fifo, notRegular("read", fifo)},
		{"write " + fifo + " x", notRegular("write", fifo)},
		{"read " + r.root, notRegular("read", r.root)},
		{"write " + r.root + " x", notRegular("write", r.root)},
	}
	dev := filepath.Join(r.root, "zero")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(devNumber(1, 5))); err != nil {
		t.Logf("no device node (%v): that case is skipped", err)
	} else {
		cases = append(cases,
			struct{ prompt, want string }{"read " + dev, notRegular("read", dev)},
			struct{ prompt, want string }{"write " + dev + " x", notRegular("write", dev)})
	}
	if err := os.Symlink("/dev/zero", filepath.Join(r.root, "zero-link")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(r.root, "zero-link")
	cases = append(cases, struct{ prompt, want string }{"read " + link, outsideAnswer("read", link)})

	big := filepath.Join(r.root, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cases = append(cases, struct{ prompt, want string }{"read " + big,
		`read error: Invalid params {"error":"file is 100.0 MiB, over the 4.0 MiB limit of fs/read_text_file (acp.max_file_bytes); read it in parts with line and limit","path":"` + big + `"}`})

	for _, c := range cases {
		if got := r.ask(c.prompt); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.prompt, got, c.want)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi, err)
	}
}

func devNumber(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor)
}

// 11,000 requests at once, all at FIFOs, are all answered, and the number
// of OS threads stays bounded (each used to pin one in open()).
func TestFSFloodKeepsThreadsBounded(t *testing.T) {
	r := newFSRig(t, 0)
	var fifos []string
	for i := range 16 {
		p := filepath.Join(r.root, "fifo"+strconv.Itoa(i))
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		fifos = append(fifos, p)
	}
	if err := r.mux.Start(r.id, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(r.id)
	before := threadCount(t)
	var (
		peak int
		wg   sync.WaitGroup
		stop = make(chan struct{})
	)
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, threadCount(t))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	const n = 11000
	reply := r.ask("flood-fs " + strconv.Itoa(n) + " " + strings.Join(fifos, " "))
	close(stop)
	wg.Wait()
	t.Logf("threads: %d before, %d at most during the flood; %s", before, peak, reply)
	if c := counts(t, reply); c["answered"] != n || c["ok"] != 0 {
		t.Fatalf("flood: %s", reply)
	}
	for _, text := range refusalTexts(reply) {
		if text != agent.RefusalNotRegular && !strings.HasPrefix(text, "too many file requests in flight") {
			t.Errorf("unexpected refusal %q", text)
		}
	}
	if peak > before+64 {
		t.Fatalf("threads grew from %d to %d during the flood", before, peak)
	}
}

// threadCount is this process's OS thread count.
func threadCount(t *testing.T) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	t.Skip("no Threads line in /proc/self/status")
	return 0
}

// line and limit pick a window, streamed: a window of a file over the limit
// is served, a whole read of it is refused.
func TestFSReadLineAndLimit(t *testing.T) {
	r := newFSRig(t, 1024)
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	p := r.file("lines.txt", b.String())
	small := r.file("small.txt", "one\ntwo\nthree")
	cases := []struct{ args, want string }{
		{small + " - -", "read: one\ntwo\nthree"},
		{small + " 2 -", "read: two\nthree"},
		{small + " - 2", "read: one\ntwo\n"},
		{small + " 2 1", "read: two\n"},
		{small + " 0 1", "read: one\n"},
		{small + " 3 5", "read: three"},
		{small + " 9 5", "read: "},
		{small + " 1 0", "read: "},
		{p + " 500 3", "read: line 500\nline 501\nline 502\n"},
		{p + " 999 -", "read: line 999\nline 1000\n"},
		{p + " 1 -", `read error: Invalid params {"error":"the lines asked for are over the 1.0 KiB limit of fs/read_text_file (acp.max_file_bytes); ask for fewer","path":"` + p + `"}`},
		{p + " - -", `read error: Invalid params {"error":"file is 8.7 KiB, over the 1.0 KiB limit of fs/read_text_file (acp.max_file_bytes); read it in parts with line and limit","path":"` + p + `"}`},
	}
	for _, c := range cases {
		if got := r.ask("read-lines " + c.args); got != c.want {
			t.Errorf("read-lines %s:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
	if got, want := r.ask("write "+filepath.Join(r.root, "new.txt")+" "+strings.Repeat("x", 1025)),
		`write error: Invalid params {"error":"content is 1025 bytes, over the 1024-byte limit of fs/write_text_file (acp.max_file_bytes)","path":"`+filepath.Join(r.root, "new.txt")+`"}`; got != want {
		t.Errorf("write over the limit:\n got %s\nwant %s", got, want)
	}
	if _, err := os.Stat(filepath.Join(r.root, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a write over the limit created the file")
	}
}

// A write replaces a file atomically and keeps its mode; a hard-linked file
// and a symlink's target are written in place, so the link stays.
func TestFSWriteKeepsModeAndLinks(t *testing.T) {
	r := newFSRig(t, 0)
	private := r.file("private.txt", "old")
	if err := os.Chmod(private, 0o600); err != nil {
		t.Fatal(err)
	}
	shared := r.file("shared.txt", "old")
	other := filepath.Join(r.root, "other-name.txt")
	if err := os.Link(shared, other); err != nil {
		t.Fatal(err)
	}
	target := r.file("sub/target.txt", "old")
	link := filepath.Join(r.root, "link.txt")
	if err := os.Symlink("sub/target.txt", link); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(r.root, "abs-link.txt")
	if err := os.Symlink(target, abs); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(r.root, "sub", "fresh.txt")
	for _, p := range []string{private, shared, link, fresh} {
		if got := r.ask("write " + p + " new"); got != "wrote" {
			t.Fatalf("write %s: %s", p, got)
		}
	}
	if got := r.ask("write " + abs + " newer"); got != "wrote" {
		t.Fatalf("write through an absolute symlink inside the root: %s", got)
	}
	for p, want := range map[string]string{private: "new", shared: "new", other: "new", target: "newer", fresh: "new"} {
		if data, _ := os.ReadFile(p); string(data) != want {
			t.Errorf("%s holds %q, want %q", p, data, want)
		}
	}
	if fi, _ := os.Stat(private); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	for _, l := range []string{link, abs} {
		if fi, _ := os.Lstat(l); fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink", l)
		}
	}
	if got := r.ask("read " + abs); got != "read: newer" {
		t.Errorf("read through an absolute symlink inside the root: %s", got)
	}
	if got, want := r.ask("write "+filepath.Join(r.root, "no-folder", "x.txt")+" x"),
		`write error: Resource not found {"error":"no such file","path":"`+filepath.Join(r.root, "no-folder", "x.txt")+`"}`; got != want {
		t.Errorf("write into a missing folder:\n got %s\nwant %s", got, want)
	}
	for _, dir := range []string{r.root, filepath.Join(r.root, "sub")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".acpmux-") {
				t.Errorf("temporary file left: %s", filepath.Join(dir, e.Name()))
			}
		}
	}
}
