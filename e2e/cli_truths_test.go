package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestCLISmallTruths: each small truth of the command line (issue 20, item
// 9) as what a user sees: the output on each stream and the exit status.
func TestCLISmallTruths(t *testing.T) {
	long := strings.Repeat("n", 60)
	tests := []struct {
		name  string
		setup func(t *testing.T, c *cli)
		args  []string
		code  int
		// out and errs must each appear; noOut and noErr must not.
		out, errs, noOut, noErr []string
		// once must appear exactly once on stderr.
		once  []string
		after func(t *testing.T, c *cli)
	}{
		{
			name: "show of a broken file exits 1",
			setup: func(t *testing.T, c *cli) {
				writeBroken(t, c)
			},
			args: []string{"show", "brk"}, code: 1,
			errs:  []string{"acpmux-tui: load chat brk:", "fix or move it by hand"},
			noOut: []string{"brk"},
		},
		{
			name: "show --json of a broken file prints it and exits 1",
			setup: func(t *testing.T, c *cli) {
				writeBroken(t, c)
			},
			args: []string{"show", "brk", "--json"}, code: 1,
			out: []string{`"status": "broken"`, `"broken": "load chat brk`},
		},
		{
			name: "a 5,000-character name is a refusal",
			args: []string{"new", "--name", strings.Repeat("x", 5000)}, code: 2,
			errs: []string{"name is 5000 bytes, at most 1024"},
		},
		{
			name: "--help prints to stdout",
			args: []string{"--help"}, code: 0,
			out:   []string{"usage: acpmux-tui [--dir DIR]", "  rename ", "--dir DIR"},
			noErr: []string{"usage"},
		},
		{
			name: "-h prints to stdout",
			args: []string{"-h"}, code: 0,
			out: []string{"usage: acpmux-tui [--dir DIR]"},
		},
		{
			name: "a command's --help prints its usage and flags to stdout",
			args: []string{"new", "--help"}, code: 0,
			out:   []string{"usage: acpmux-tui new [--dir DIR]", "--dir DIR", "--json"},
			noOut: []string{"Usage of", "-dir value"},
			noErr: []string{"usage"},
		},
		{
			name: "an unknown flag: one error and the usage once, in the --flag form",
			args: []string{"--bogus"}, code: 2,
			once:  []string{"unknown flag --bogus", "usage: acpmux-tui [--dir DIR]"},
			noErr: []string{"flag provided but not defined", "Usage of"},
			noOut: []string{"usage"},
		},
		{
			name: "an unknown flag of a command",
			args: []string{"new", "--bogus"}, code: 2,
			once:  []string{"acpmux-tui: unknown flag --bogus", "usage: acpmux-tui new", "  --dir DIR "},
			noErr: []string{"flag provided but not defined", "Usage of", "-dir value"},
		},
		{
			name: "an unknown flag of ls",
			args: []string{"ls", "-x"}, code: 2,
			once: []string{"unknown flag --x", "usage: acpmux-tui ls [--host NAME] [--json]"},
		},
		{
			name: "a flag without its value",
			args: []string{"new", "--dir"}, code: 2,
			once: []string{"flag --dir needs an argument"},
		},
		{
			name: "ls cuts long names to the column",
			setup: func(t *testing.T, c *cli) {
				c.ok("new", "--name", long)
			},
			args: []string{"ls"}, code: 0,
			out:   []string{long[:39] + "…"},
			noOut: []string{long[:40]},
		},
		{
			name: "rm says 1 entry, not 1 entries",
			setup: func(t *testing.T, c *cli) {
				j := c.chat("new", "--name", "busy", "--json")
				writeFile(t, filepath.Join(j.Cwd, "notes.md"), "mine")
			},
			args: []string{"rm", "busy"}, code: 1,
			errs:  []string{"is not empty (1 entry)"},
			noErr: []string{"1 entries"},
		},
		{
			name: "a shell never takes a capsule: show says so",
			setup: func(t *testing.T, c *cli) {
				c.ok("new", "--name", "zap")
				c.ok("handoff", "zap", "--to", "shell")
			},
			args: []string{"show", "zap → shell"}, code: 0,
			out:   []string{".handoff.md  (never sent: shell takes no first message; it stays in this file)"},
			noOut: []string{"at its first start"},
		},
		{
			name: "handoff to a shell says at once the capsule is never sent",
			setup: func(t *testing.T, c *cli) {
				c.ok("new", "--name", "zap")
			},
			args: []string{"handoff", "zap", "--to", "shell"}, code: 0,
			errs:  []string{".handoff.md (no redactions), never sent: shell takes no first message"},
			noErr: []string{"at its first start"},
		},
		{
			name: "handoff to a harness that takes a first message says it is sent",
			setup: func(t *testing.T, c *cli) {
				c.ok("new", "--name", "zap")
			},
			args: []string{"handoff", "zap", "--to", "claude"}, code: 0,
			errs:  []string{".handoff.md (no redactions), sent as its first message at its first start"},
			noErr: []string{"never sent"},
		},
		{
			name: "a harness that takes a first message is sent the capsule",
			setup: func(t *testing.T, c *cli) {
				c.ok("new", "--name", "zap")
				c.run("handoff", "zap", "--to", "claude") // warns: not installed
			},
			args: []string{"show", "zap → claude"}, code: 0,
			out:   []string{".handoff.md  (sent as its first message at its first start)"},
			noOut: []string{"never sent"},
		},
		{
			name: "show says forked as a capsule, as docs/cli.md does",
			setup: func(t *testing.T, c *cli) {
				store, err := sessions.OpenStore(c.home)
				if err != nil {
					t.Fatal(err)
				}
				p, err := store.Create(sessions.NewChat{Harness: "gemini", Name: "g"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := store.Create(sessions.NewChat{Harness: "gemini", Name: "g · fork", Parent: p.ID, Origin: sessions.OriginFork, Capsule: "# Forked from chat g\n"}); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"show", "g · fork"}, code: 0,
			out: []string{"capsule      " + harness.ForkedAsCapsule + "\n", ".handoff.md  (sent as its first message at its first start)"},
		},
		{
			name: "add-dir of a folder already there says so and writes nothing",
			setup: func(t *testing.T, c *cli) {
				c.ok("new", "--name", "w", "--dir", c.dir("a"))
			},
			args: []string{"add-dir", "w", "a"}, code: 0,
			out:  []string{"already has every folder given: nothing changed"},
			errs: []string{"already has "}, // the folder, resolved
			after: func(t *testing.T, c *cli) {
				if r := c.run("show", "w", "--json"); !strings.Contains(r.stdout, `"additionalDirectories": [
    "`+c.dir("a")+`"
  ]`) {
					t.Errorf("the folder list changed:\n%s", r.stdout)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			if tt.setup != nil {
				tt.setup(t, c)
			}
			var before map[string][]byte
			if tt.name == "add-dir of a folder already there says so and writes nothing" {
				before = readChats(t, c)
			}
			r := c.run(tt.args...)
			if r.code != tt.code {
				t.Errorf("%.60q exited %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.args, r.code, tt.code, r.stdout, r.stderr)
			}
			for _, s := range tt.out {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
				}
			}
			for _, s := range tt.noOut {
				if strings.Contains(r.stdout, s) {
					t.Errorf("stdout has %q:\n%s", s, r.stdout)
				}
			}
			for _, s := range tt.errs {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
			for _, s := range tt.noErr {
				if strings.Contains(r.stderr, s) {
					t.Errorf("stderr has %q:\n%s", s, r.stderr)
				}
			}
			for _, s := range tt.once {
				if n := strings.Count(r.stderr, s); n != 1 {
					t.Errorf("stderr has %q %d times, want once:\n%s", s, n, r.stderr)
				}
			}
			if before != nil {
				if after := readChats(t, c); !sameFiles(before, after) {
					t.Errorf("a chat file was written")
				}
			}
			if tt.after != nil {
				tt.after(t, c)
			}
		})
	}
}

// writeBroken writes chats/brk.toml, a chat file that does not parse.
func writeBroken(t *testing.T, c *cli) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(c.home, "chats"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(c.home, "chats", "brk.toml"), "not = [toml")
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readChats reads every file of the chats folder.
func readChats(t *testing.T, c *cli) map[string][]byte {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(c.home, "chats"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, de := range des {
		data, err := os.ReadFile(filepath.Join(c.home, "chats", de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[de.Name()] = data
	}
	return out
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestCLIShowPendingWording: a folder change a running chat has not yet
// taken is said by show in the wording of the TUI and the docs: a shell
// starts fresh each time, so it takes the change at its next restart.
func TestCLIShowPendingWording(t *testing.T) {
	c := newCLI(t)
	j := c.chat("new", "--name", "sh", "--json")
	startForeground(t, c)
	var started proto.ChatJSON
	srvCall(t, c.home, proto.MethodStart, proto.ChatParams{ID: j.ID}, &started)
	r := c.run("add-dir", "sh", c.dir("lib"))
	if r.code != 0 {
		t.Fatalf("add-dir: exit %d\n%s", r.code, r.stderr)
	}
	want := "(the running harness takes these " + proto.PendingAtRestart + " (" + harness.StartsFresh + "))"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("add-dir on a running shell does not say %q:\n%s", want, r.stdout)
	}
	if show := c.ok("show", "sh"); !strings.Contains(show, want) {
		t.Errorf("show does not say %q:\n%s", want, show)
	}
}

// TestDocsOneWording: the docs say what the code says: one phrase for when
// a pending folder change applies, and the fork-as-capsule line of show.
func TestDocsOneWording(t *testing.T) {
	var all strings.Builder
	files, _ := filepath.Glob(filepath.Join(moduleRoot, "docs", "*.md"))
	for _, f := range append(files, filepath.Join(moduleRoot, "README.md")) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(data)
	}
	docs := regexp.MustCompile(`\s+`).ReplaceAllString(all.String(), " ")
	for _, want := range []string{proto.PendingAtTurnEnd, harness.ForkedAsCapsule} {
		if !strings.Contains(docs, want) {
			t.Errorf("the docs never say %q", want)
		}
	}
	for _, other := range []string{"end of this turn", "at the end of the turn", "at the next restart"} {
		if strings.Contains(docs, other) {
			t.Errorf("the docs say %q; the code says %q or %q", other, proto.PendingAtTurnEnd, proto.PendingAtRestart)
		}
	}
}
