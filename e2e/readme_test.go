package e2e

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// readmeFile is the front page the README tests read: README.new.md while
// a new one is being written beside the old, else README.md.
func readmeFile(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"README.new.md", "README.md"} {
		p := filepath.Join(moduleRoot, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("no README.md at the module root")
	return ""
}

// readmeLine is one command line of the README's sh blocks.
type readmeLine struct {
	n       int    // line number in the file
	command string // the shell command, without its comment
	comment string // what follows the command's "#", if anything
}

// The marks a README line's comment may carry.
var (
	// readmeExits is "exits N": the line exits N, not 0.
	readmeExits = regexp.MustCompile(`\bexits (\d+)\b`)
	// readmeOnlyParse is a line that needs what a test has not (a
	// terminal for the TUI or attach, another machine for --host): it is
	// run with --help, which parses the command and its flags and exits 0.
	readmeOnlyParse = regexp.MustCompile(`\(needs a (terminal|host)\)`)
	// readmeHomePath is a path under ~ a command names.
	readmeHomePath = regexp.MustCompile(`~/[^\s"'|;&)]+`)
)

// readmeCommands returns the lines of the README's ```sh blocks that run
// acpmux-tui, in order, and every line of those blocks.
func readmeCommands(t *testing.T, text string) (cmds []readmeLine, all []string) {
	t.Helper()
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case !in && strings.TrimSpace(line) == "```sh":
			in = true
		case in && strings.TrimSpace(line) == "```":
			in = false
		case in:
			all = append(all, line)
			if line == "acpmux-tui" || strings.HasPrefix(line, "acpmux-tui ") {
				cmd, comment := splitComment(line)
				cmds = append(cmds, readmeLine{n: n, command: cmd, comment: comment})
			}
		}
	}
	if in {
		t.Fatal("the README ends inside a ```sh block")
	}
	return cmds, all
}

// splitComment cuts a shell line at its comment: the first # outside
// quotes that starts a word.
func splitComment(line string) (cmd, comment string) {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '#' && (i == 0 || unicode.IsSpace(rune(line[i-1]))):
			return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
		}
	}
	return strings.TrimSpace(line), ""
}

// TestReadmeCommandsRun runs every acpmux-tui line of the README's sh
// blocks, in order, in a world of its own (agent home, config and HOME in
// a temporary folder; fake claude, codex and claude-agent-acp on PATH),
// and holds each to the exit its comment gives (0 unless it says "exits
// N"). A line that needs a terminal or a host is parsed only (--help).
func TestReadmeCommandsRun(t *testing.T) {
	path := readmeFile(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cmds, _ := readmeCommands(t, string(data))
	if len(cmds) == 0 {
		t.Fatalf("%s has no acpmux-tui line in a ```sh block", path)
	}

	c := newCLI(t)
	bin := filepath.Join(c.root, "bin")
	pty, acp := buildFakeHarness(t), buildACPFake(t)
	for name, target := range map[string]string{"acpmux-tui": binary, "claude": pty, "codex": pty, "claude-agent-acp": acp} {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(c.root, "user")

	type step struct {
		readmeLine
		want      int
		onlyParse bool
	}
	var steps []step
	for _, l := range cmds {
		s := step{readmeLine: l, onlyParse: readmeOnlyParse.MatchString(l.comment)}
		if m := readmeExits.FindStringSubmatch(l.comment); m != nil {
			s.want, _ = strconv.Atoi(m[1])
		}
		if s.onlyParse {
			s.command += " --help"
			s.want = 0
		}
		// The folders a line that succeeds names exist; one named only
		// by a line that fails may not (it may be why it fails).
		if s.want == 0 {
			for _, p := range readmeHomePath.FindAllString(s.command, -1) {
				if err := os.MkdirAll(filepath.Join(home, strings.TrimPrefix(p, "~/")), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		steps = append(steps, s)
	}

	for _, s := range steps {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", s.command)
		cmd.Env = c.env()
		cmd.Dir = home
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		code := 0
		var ee *exec.ExitError
		switch {
		case timedOut:
			t.Fatalf("%s:%d: %s: no exit within 2 minutes\n%s", filepath.Base(path), s.n, s.command, out)
		case errors.As(err, &ee):
			code = ee.ExitCode()
		case err != nil:
			t.Fatal(err)
		}
		if code != s.want {
			t.Errorf("%s:%d: %s: exit %d, want %d\n%s", filepath.Base(path), s.n, s.command, code, s.want, out)
		}
		if s.onlyParse && !strings.HasPrefix(string(out), "usage: acpmux-tui") {
			t.Errorf("%s:%d: %s: no usage printed\n%s", filepath.Base(path), s.n, s.command, out)
		}
	}
}

// TestReadmeIsAFrontPage: the README stays short, gives the command that
// runs the app and the one that runs every test, names every command of
// `acpmux-tui help` as a link, and each of its links into the repository
// reaches a file and, where it names one, a heading of it.
func TestReadmeIsAFrontPage(t *testing.T) {
	path := readmeFile(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "\n"); n >= 200 {
		t.Errorf("%s has %d lines; a front page keeps under 200", filepath.Base(path), n)
	}
	cmds, all := readmeCommands(t, text)
	if !slices.ContainsFunc(cmds, func(l readmeLine) bool { return l.command == "acpmux-tui" }) {
		t.Error("no sh block gives the command that runs the app, `acpmux-tui`")
	}
	if !slices.ContainsFunc(all, func(l string) bool { return strings.HasPrefix(l, "scripts/test") }) {
		t.Error("no sh block gives the command that runs every test, `scripts/test`")
	}

	help := exec.Command(binary, "help")
	out, err := help.Output()
	if err != nil {
		t.Fatalf("acpmux-tui help: %v", err)
	}
	names := regexp.MustCompile(`(?m)^  ([a-z][a-z-]*) `).FindAllStringSubmatch(string(out), -1)
	if len(names) < 10 {
		t.Fatalf("acpmux-tui help lists %d commands:\n%s", len(names), out)
	}
	for _, m := range names {
		if !strings.Contains(text, "[`"+m[1]+"`](") {
			t.Errorf("the README's command list does not name %q as a link ([`%s`](docs/cli.md#...))", m[1], m[1])
		}
	}

	links := regexp.MustCompile(`\]\(([^)\s:]+?)(#[^)\s]+)?\)`).FindAllStringSubmatch(text, -1)
	for _, m := range links {
		file := filepath.Join(moduleRoot, filepath.FromSlash(m[1]))
		target, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("link %s%s: %v", m[1], m[2], err)
			continue
		}
		if m[2] == "" {
			continue
		}
		if !slices.Contains(headingAnchors(string(target)), strings.TrimPrefix(m[2], "#")) {
			t.Errorf("link %s%s: %s has no such heading", m[1], m[2], m[1])
		}
	}
}

// headingAnchors returns the anchors a Markdown renderer gives the
// headings of a file (not the lines of its code blocks that start with #):
// lower case, spaces to hyphens, punctuation but hyphens and underscores
// dropped.
func headingAnchors(md string) []string {
	var out []string
	fence := false
	for line := range strings.SplitSeq(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
