package sessions

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/acpmux/acpmux-tui/proto"
)

// FuzzValidateFolders feeds the validator a cwd and a newline-separated list.
// A leading "@" in either stands for the root of a small tree of folders,
// links, loops and files (see newTree), so the fuzzer reaches the file-system
// rules as well as the syntax ones. Whatever comes in, the validator must not
// panic, and what it returns must keep every promise of docs/chat-files.md.
func FuzzValidateFolders(f *testing.F) {
	f.Add("@/own", "@/a\n@/link-a\n@/b/")
	tr := newTree(f)
	expand := func(s string) string {
		if strings.HasPrefix(s, "@") {
			return tr.root + s[1:]
		}
		return s
	}
	f.Fuzz(func(t *testing.T, cwd, list string) {
		// /proc/thread-self and /dev/fd/N resolve differently from one call
		// to the next; every other path resolves the same while the test runs.
		if strings.Contains(cwd+list, "proc") || strings.Contains(cwd+list, "dev") {
			t.Skip("a path whose target changes under the test")
		}
		cwd = expand(cwd)
		var dirs []string
		if list != "" {
			dirs = strings.Split(list, "\n")
		}
		for i := range dirs {
			dirs[i] = expand(dirs[i])
		}
		out, err := ValidateFolders(cwd, dirs)
		if err != nil {
			checkRefusal(t, err, cwd, dirs)
			return
		}
		if out == nil {
			t.Fatal("accepted list is nil")
		}
		if len(out) > MaxFolders || len(out) > len(dirs) {
			t.Fatalf("%d folders out of %d given", len(out), len(dirs))
		}
		own := canonicalOwn(cwd)
		seen := map[string]bool{}
		for _, d := range out {
			if !filepath.IsAbs(d) || filepath.Clean(d) != d {
				t.Fatalf("%q is not absolute and clean", d)
			}
			if real, err := filepath.EvalSymlinks(d); err != nil || real != d {
				t.Fatalf("%q is not canonical: %q, %v", d, real, err)
			}
			if seen[d] {
				t.Fatalf("%q listed twice", d)
			}
			seen[d] = true
			if d == own {
				t.Fatalf("%q is the chat's own folder", d)
			}
		}
		// Every entry given is one of the folders returned, spelt another way.
		for _, d := range dirs {
			c, err := Canonical(d)
			if err != nil || !seen[c] {
				t.Fatalf("entry %q (%q, %v) accepted but not returned", d, c, err)
			}
		}
		// The canonical list is a fixed point.
		again, err := ValidateFolders(cwd, out)
		if err != nil || strings.Join(again, "\n") != strings.Join(out, "\n") {
			t.Fatalf("validating the result again gave %q, %v", again, err)
		}
	})
}

func checkRefusal(t *testing.T, err error, cwd string, dirs []string) {
	t.Helper()
	fe, ok := err.(*FolderError)
	if !ok {
		t.Fatalf("refusal is %T, not *FolderError: %v", err, err)
	}
	if fe.Code() != -32602 || fe.Count != len(dirs) {
		t.Fatalf("code %d, count %d of %d", fe.Code(), fe.Count, len(dirs))
	}
	// Too many is counted on what the validator keeps: the distinct folders
	// of the good entries, unless the list is too long to be read at all.
	unread := len(dirs) > maxGivenFolders || pathBytes(dirs) > maxGivenBytes
	kept := 0
	if !unread {
		own, seen := canonicalOwn(cwd), map[string]bool{}
		for _, d := range dirs {
			if c, err := Canonical(d); err == nil && c != own && !seen[c] {
				seen[c] = true
				kept++
			}
		}
		if fe.Kept != kept {
			t.Fatalf("Kept = %d, %d distinct folders in %q", fe.Kept, kept, dirs)
		}
	}
	if fe.TooMany != (unread || kept > MaxFolders) {
		t.Fatalf("TooMany = %v with %d entries, %d kept", fe.TooMany, len(dirs), kept)
	}
	if !fe.TooMany && len(fe.Problems) == 0 {
		t.Fatal("a refusal names no entry")
	}
	if len(fe.Problems) > maxListedProblems {
		t.Fatalf("%d problems listed", len(fe.Problems))
	}
	last := -1
	for _, p := range fe.Problems {
		if p.Index <= last || p.Index >= len(dirs) {
			t.Fatalf("index %d after %d, of %d entries", p.Index, last, len(dirs))
		}
		last = p.Index
		if p.Path != clip(dirs[p.Index]) || p.Reason == "" {
			t.Fatalf("problem %+v for entry %q", p, dirs[p.Index])
		}
		if !strings.Contains(err.Error(), "["+itoa(p.Index)+"] ") {
			t.Fatalf("error text lacks entry %d:\n%s", p.Index, err)
		}
	}
	var rpc struct {
		Code int `json:"code"`
		Data struct {
			Entries []proto.FolderProblem `json:"entries"`
		} `json:"data"`
	}
	if err := json.Unmarshal(fe.RPCError(), &rpc); err != nil || rpc.Code != -32602 || rpc.Data.Entries == nil {
		t.Fatalf("RPCError %s: %v", fe.RPCError(), err)
	}
	if len(rpc.Data.Entries) != len(fe.Problems) {
		t.Fatalf("RPCError has %d entries, error %d", len(rpc.Data.Entries), len(fe.Problems))
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// FuzzParseMeta feeds arbitrary bytes to the chat-file reader. It must not
// panic; what it accepts must satisfy the checks every stored chat passes and
// survive a rewrite: parse, Marshal, parse again gives the same chat, and
// Marshal is then stable byte for byte.
// sameBaseline reports whether two baselines hold the same instants, heads
// and folders.
func sameBaseline(a, b *Baseline) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !a.At.Equal(b.At) || a.Head != b.Head || len(a.Folders) != len(b.Folders) {
		return false
	}
	for i, f := range a.Folders {
		g := b.Folders[i]
		if f.Path != g.Path || f.Head != g.Head || (f.Since == nil) != (g.Since == nil) || f.Since != nil && !f.Since.Equal(*g.Since) {
			return false
		}
	}
	return true
}

func FuzzParseMeta(f *testing.F) {
	f.Add([]byte("version = 1\nid = \"k3x9q2\"\nharness = \"claude\"\ncwd = \"/\"\n"))
	f.Add([]byte("version = 1\nid = \"k3x9q2\"\nharness = \"claude\"\ncwd = \"/w\"\nlater = 1\n\n[worktree]\npath = \"/w\"\nbranch = \"acpmux/x-k3x9q2\"\nbase = \"abc\"\nrepo = \"/r\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMeta(data)
		if err != nil {
			if m != nil {
				t.Fatalf("error %v with a chat %+v", err, m)
			}
			return
		}
		if m.Version != FormatVersion || !ValidID(m.ID) || m.Harness == "" || !filepath.IsAbs(m.Cwd) || len(m.AdditionalDirectories) > MaxFolders || len(m.AdditionalFiles) > MaxFiles {
			t.Fatalf("accepted a chat that breaks the rules: %+v", m)
		}
		out, err := m.Marshal()
		if err != nil {
			t.Fatalf("Marshal of an accepted chat: %v\ninput:\n%s", err, data)
		}
		m2, err := ParseMeta(out)
		if err != nil {
			t.Fatalf("rewrite does not parse: %v\ninput:\n%s\nrewritten:\n%s", err, data, out)
		}
		if m.ID != m2.ID || m.Name != m2.Name || m.Harness != m2.Harness || m.Cwd != m2.Cwd ||
			strings.Join(m.AdditionalDirectories, "\x00") != strings.Join(m2.AdditionalDirectories, "\x00") ||
			!m.Created.Equal(m2.Created) || m.Parent != m2.Parent || m.Origin != m2.Origin ||
			m.AgentSessionID != m2.AgentSessionID || !sameBaseline(m.Baseline, m2.Baseline) ||
			(m.Worktree == nil) != (m2.Worktree == nil) ||
			(m.Worktree != nil && *m.Worktree != *m2.Worktree) {
			t.Fatalf("rewrite changed the chat:\n%+v\n%+v\nrewritten:\n%s", m, m2, out)
		}
		if len(m.ExtraKeys()) != len(m2.ExtraKeys()) {
			t.Fatalf("rewrite changed the kept keys: %v -> %v\nrewritten:\n%s", m.ExtraKeys(), m2.ExtraKeys(), out)
		}
		out2, err := m2.Marshal()
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("Marshal not stable (%v):\n%s\n---\n%s", err, out, out2)
		}
	})
}

// FuzzCheckNesting holds the depth guard to the TOML parser itself. On text
// the parser accepts, a refusal must mean the text really nests deeper than
// maxNesting (so no string, comment or float read as structure ever refuses
// a valid chat file), and an acceptance must mean the parser's recursion is
// bounded: the header's levels plus a body's, each within maxNesting.
func FuzzCheckNesting(f *testing.F) {
	f.Add([]byte("a = [[1.5], {b.c = \"[[\"}]\n[t.u]\nv = '''{{'''\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := checkNesting(data)
		if err != nil && len(data) > 512 {
			// Too deep to give the parser: a dotted key of a few thousand
			// parts takes it seconds, a megabyte of "[" its whole stack.
			return
		}
		var v map[string]any
		if _, perr := toml.Decode(string(data), &v); perr != nil {
			return
		}
		d := depthOf(v)
		if err != nil && d <= maxNesting {
			t.Fatalf("refused valid text %d levels deep: %v\n%q", d, err, data)
		}
		if err == nil && d > 2*maxNesting+2 {
			t.Fatalf("accepted text %d levels deep\n%q", d, data)
		}
	})
}

// depthOf counts the levels of tables and arrays in a decoded TOML value; the
// top-level table is one.
func depthOf(v any) int {
	deepest := 0
	switch v := v.(type) {
	case map[string]any:
		for _, c := range v {
			deepest = max(deepest, depthOf(c))
		}
	case []map[string]any:
		for _, c := range v {
			deepest = max(deepest, depthOf(c))
		}
	case []any:
		for _, c := range v {
			deepest = max(deepest, depthOf(c))
		}
	default:
		return 0
	}
	return deepest + 1
}

// FuzzValidID holds ValidID's loop to the rule it was first written as, a
// regular expression.
func FuzzValidID(f *testing.F) {
	for _, id := range []string{"a", "k3x9q2", "a-b", strings.Repeat("z", 64), strings.Repeat("z", 65), "", ".", "..", "A", "a.b", "é", "a\x00", "-"} {
		f.Add(id)
	}
	rule := regexp.MustCompile(`^[a-z0-9-]{1,64}$`)
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := ValidID(id), rule.MatchString(id); got != want {
			t.Fatalf("ValidID(%q) = %v, the rule says %v", id, got, want)
		}
	})
}
