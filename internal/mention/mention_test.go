package mention

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tree makes files (and the symlinks the walk must judge) under root and
// returns the chat's folder, its added folder and its single file.
func tree(t *testing.T) (cwd, lib, own string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		"app/src/parser.go", "app/src/parser_test.go", "app/README.md", "app/docs/par/sing.md",
		"app/.git/config", "app/node_modules/x/index.js", "app/.env",
		"lib/util.go", "outside/secret.txt", "specs/api.md",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"app/leak.txt": "outside/secret.txt", "app/out": "outside", "app/util-link.go": "lib/util.go"} {
		if err := os.Symlink(filepath.Join(root, to), filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "app"), filepath.Join(root, "lib"), filepath.Join(root, "specs/api.md")
}

func labels(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Label)
	}
	return out
}

// TestListOffersOwnFilesThenTheFoldersAndNothingOutside: the chat's own
// file first, then its folder's and its added folder's files; no hidden
// file, no node_modules, no link that leads out of the folders.
func TestListOffersOwnFilesThenTheFoldersAndNothingOutside(t *testing.T) {
	cwd, lib, own := tree(t)
	files, full := List(cwd, []string{lib}, []string{own})
	want := []string{own, "README.md", "docs/par/sing.md", "src/parser.go", "src/parser_test.go", "util-link.go", "lib/util.go"}
	if full || !slices.Equal(labels(files), want) {
		t.Fatalf("listed %q (full %v), want %q", labels(files), full, want)
	}
	if !files[0].Own || files[0].Match != "specs/api.md" {
		t.Fatalf("the own file: %+v", files[0])
	}
	// Without a folder (a chat of another host): the own files alone.
	if files, _ := List("", nil, []string{own}); len(files) != 1 || files[0].Path != own {
		t.Fatalf("own files only: %+v", files)
	}
	// The bounds: files and depth.
	if files, full := Walk([]string{cwd}, 2, 12, true); len(files) != 2 || !full {
		t.Fatalf("two files at most: %d listed, full %v", len(files), full)
	}
	files, _ = Walk([]string{cwd}, 100, 1, true)
	for _, f := range files {
		if strings.Contains(f.Label, "/") {
			t.Fatalf("depth 1 listed %q", f.Label)
		}
	}
}

// TestLabelsAreClean: a file's name is outside text; its label holds no
// escape, control or bidi control.
func TestLabelsAreClean(t *testing.T) {
	cwd, _, _ := tree(t)
	evil := filepath.Join(cwd, "evil\x1b]0;pwned\x07\u202e<script>.go")
	if err := os.WriteFile(evil, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _ := List(cwd, nil, []string{evil})
	n := 0
	for _, f := range files {
		if f.Path == evil {
			n++
			if strings.ContainsAny(f.Label+f.Match, "\x1b\x07\u202e") || !strings.Contains(f.Label, "evil") {
				t.Fatalf("the label %q (match %q) is not clean", f.Label, f.Match)
			}
		}
	}
	if n != 2 {
		t.Fatalf("the file is listed %d times, want as own and in the folder", n)
	}
}

// TestRankPutsOwnFilesFirstThenTheBestMatch: own files first, then the
// best match, shorter labels among equals; the limit cuts the answer but
// not the count; an empty query keeps the listing's order.
func TestRankPutsOwnFilesFirstThenTheBestMatch(t *testing.T) {
	cwd, lib, own := tree(t)
	files, _ := List(cwd, []string{lib}, []string{own})
	got, n := Rank(files, "pars", 0)
	if n != 3 || !slices.Equal(labels(got), []string{"src/parser.go", "src/parser_test.go", "docs/par/sing.md"}) {
		t.Fatalf("pars: %q (%d)", labels(got), n)
	}
	got, n = Rank(files, "", 3)
	if n != 7 || !slices.Equal(labels(got), []string{own, "README.md", "docs/par/sing.md"}) {
		t.Fatalf("empty query, limit 3: %q (%d)", labels(got), n)
	}
	// An own file matching worse still comes first.
	got, _ = Rank(files, "a", 2)
	if !got[0].Own {
		t.Fatalf("a: %q", labels(got))
	}
	// Files not prepared rank as prepared ones do.
	bare := []File{{Label: "src/p/a/r/s/e/r.go", Match: "src/p/a/r/s/e/r.go"}, {Label: "src/parser.go", Match: "src/parser.go"}}
	if got, _ := Rank(bare, "parser", 0); got[0].Label != "src/parser.go" {
		t.Fatalf("unprepared: %q", labels(got))
	}
}

// TestListingsReuseAFreshListing: a listing is walked once while fresh,
// again once stale, and only Cached are kept.
func TestListingsReuseAFreshListing(t *testing.T) {
	var l Listings
	walks := 0
	list := func() ([]File, bool) { walks++; return []File{{Label: "x"}}, false }
	at := time.Unix(1000, 0)
	l.Get("a", at, list)
	l.Get("a", at.Add(Fresh-time.Second), list)
	if walks != 1 {
		t.Fatalf("walked %d times while fresh", walks)
	}
	l.Get("a", at.Add(Fresh), list)
	if walks != 2 {
		t.Fatalf("walked %d times, want again once stale", walks)
	}
	for i := range Cached + 3 {
		l.Get(fmt.Sprint("k", i), at.Add(Fresh+time.Duration(i)*time.Millisecond), list)
	}
	if len(l.m) != Cached {
		t.Fatalf("kept %d listings, want %d", len(l.m), Cached)
	}
}

func TestScoreOrdersAsMentionsDo(t *testing.T) {
	for _, tc := range []struct {
		query   string
		better  string
		worse   string
		matches bool
	}{
		{"parser", "src/parser.go", "src/p/a/r/s/e/r.go", true}, // a run beats scattered letters
		{"par", "src/parser.go", "parts/list.go", true},         // in the base name beats a folder's
		{"pg", "src/parser.go", "src/ping.go", false},           // both match; ping starts the base
		{"rd", "README.md", "docs/reader.md", false},            // both match
		{"main", "main.go", "cmd/tool/domain_names.go", true},   // a base name's head
		{"tu", "tui/chatpane.go", "internal/text/utf.go", true}, // a segment's start
		{"zz", "", "", false},
	} {
		if tc.better == "" {
			if _, ok := Score(tc.query, "src/parser.go"); ok {
				t.Fatalf("%q matched src/parser.go", tc.query)
			}
			continue
		}
		b, okB := Score(tc.query, tc.better)
		w, okW := Score(tc.query, tc.worse)
		if !okB || !okW {
			t.Fatalf("%q: %q matched %v, %q matched %v", tc.query, tc.better, okB, tc.worse, okW)
		}
		if tc.matches && b <= w {
			t.Fatalf("%q: %q scored %d, not above %q's %d", tc.query, tc.better, b, tc.worse, w)
		}
	}
	// A subsequence, case folded; not one out of order.
	if _, ok := Score("PaRsEr", "src/parser.go"); !ok {
		t.Fatal("case folding")
	}
	if _, ok := Score("resrap", "src/parser.go"); ok {
		t.Fatal("out of order matched")
	}
}
