package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// tree is a folder layout for validator tests, rooted at a canonical temp dir.
type tree struct {
	root string
}

func (tr tree) p(rel string) string { return filepath.Join(tr.root, rel) }

// newTree builds:
//
//	a/ b/ own/ "with space/" "ünïcødé 目录/" deep/x/y/ file
//	link-a -> a          chain1 -> chain2 -> chain3 -> a
//	link-own -> own      dangling -> nope      chain-dangling -> dangling
//	loop1 -> loop2 -> loop1                    link-deep -> deep/x/y
//	rel-link -> a (relative target)            link-file -> file
func newTree(t testing.TB) tree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{root}
	for _, d := range []string{"a", "b", "own", "with space", "ünïcødé 目录", "deep/x/y"} {
		if err := os.MkdirAll(tr.p(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(tr.p("file"), []byte("not a folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := [][2]string{
		{"link-a", tr.p("a")},
		{"chain3", tr.p("a")}, {"chain2", tr.p("chain3")}, {"chain1", tr.p("chain2")},
		{"link-own", tr.p("own")},
		{"dangling", tr.p("nope")}, {"chain-dangling", tr.p("dangling")},
		{"loop1", tr.p("loop2")}, {"loop2", tr.p("loop1")},
		{"link-deep", tr.p("deep/x/y")},
		{"rel-link", "a"},
		{"link-file", tr.p("file")},
	}
	for _, l := range links {
		if err := os.Symlink(l[1], tr.p(l[0])); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func TestValidateFoldersRules(t *testing.T) {
	tr := newTree(t)
	own := tr.p("own")
	long := "/" + strings.Repeat("x", 5000)
	tests := []struct {
		name   string
		given  string
		want   string // canonical form when accepted
		reason string // refusal reason when refused
	}{
		{name: "plain folder", given: tr.p("a"), want: tr.p("a")},
		{name: "trailing slash", given: tr.p("a") + "/", want: tr.p("a")},
		{name: "several trailing slashes", given: tr.p("a") + "///", want: tr.p("a")},
		{name: "dot segments", given: tr.p("./a/./"), want: tr.p("a")},
		{name: "doubled slashes", given: tr.root + "//a", want: tr.p("a")},
		{name: "dot-dot segment", given: tr.root + "/b/../a", want: tr.p("a")},
		{name: "symlink to a folder", given: tr.p("link-a"), want: tr.p("a")},
		{name: "symlink with trailing slash", given: tr.p("link-a") + "/", want: tr.p("a")},
		{name: "relative symlink target", given: tr.p("rel-link"), want: tr.p("a")},
		{name: "chain of links", given: tr.p("chain1"), want: tr.p("a")},
		{name: "dot-dot after a symlink resolves physically", given: tr.p("link-deep") + "/..", want: tr.p("deep/x")},
		{name: "two dot-dots after a symlink", given: tr.p("link-deep") + "/../..", want: tr.p("deep")},
		{name: "spaces", given: tr.p("with space"), want: tr.p("with space")},
		{name: "non-ASCII", given: tr.p("ünïcødé 目录"), want: tr.p("ünïcødé 目录")},
		{name: "root folder", given: "/", want: "/"},

		{name: "empty string", given: "", reason: "empty path"},
		{name: "NUL byte", given: tr.p("a") + "\x00x", reason: "contains a NUL byte"},
		{name: "relative path", given: "a/b", reason: "not an absolute path"},
		{name: "dot", given: ".", reason: "not an absolute path"},
		{name: "tilde is not expanded", given: "~/src", reason: "not an absolute path"},
		{name: "invalid UTF-8", given: "/tmp/\xff\xfe", reason: "not valid UTF-8"},
		{name: "longer than PATH_MAX", given: long, reason: "path is 5001 bytes, longer than the system allows (4095)"},
		{name: "does not exist", given: tr.p("nope"), reason: "does not exist"},
		{name: "a regular file", given: tr.p("file"), reason: "not a directory"},
		{name: "a regular file with trailing slash", given: tr.p("file") + "/", reason: "does not exist (a parent is not a directory)"},
		{name: "symlink to a file", given: tr.p("link-file"), reason: "not a directory"},
		{name: "below a regular file", given: tr.p("file/sub"), reason: "does not exist (a parent is not a directory)"},
		{name: "dot-dot after a regular file", given: tr.p("file") + "/..", reason: "does not exist (a parent is not a directory)"},
		{name: "dangling symlink", given: tr.p("dangling"), reason: "dangling symlink: its target does not exist"},
		{name: "chain ending in a dangling link", given: tr.p("chain-dangling"), reason: "dangling symlink: its target does not exist"},
		{name: "below a dangling link", given: tr.p("dangling/sub"), reason: "does not exist"},
		{name: "symlink loop", given: tr.p("loop1"), reason: "symlink loop"},
		{name: "the chat's own folder", given: own, reason: "is the chat's own folder"},
		{name: "own folder with trailing slash", given: own + "/", reason: "is the chat's own folder"},
		{name: "own folder through dot-dot", given: tr.p("a/../own"), reason: "is the chat's own folder"},
		{name: "symlink to the chat's own folder", given: tr.p("link-own"), reason: "is the chat's own folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateFolders(own, []string{tt.given})
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("ValidateFolders(%q) refused: %v", tt.given, err)
				}
				if len(got) != 1 || got[0] != tt.want {
					t.Fatalf("ValidateFolders(%q) = %q, want [%q]", tt.given, got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ValidateFolders(%q) = %q, want refusal %q", tt.given, got, tt.reason)
			}
			if got != nil {
				t.Errorf("refusal returned folders %q", got)
			}
			fe, ok := AsFolderError(err)
			if !ok {
				t.Fatalf("error %T is not a *FolderError: %v", err, err)
			}
			want := proto.FolderProblem{Index: 0, Path: clip(tt.given), Reason: tt.reason}
			if len(fe.Problems) != 1 || fe.Problems[0] != want {
				t.Fatalf("problems = %#v, want [%#v]", fe.Problems, want)
			}
			line := fmt.Sprintf("[0] %s: %s", quotePath(clip(tt.given)), tt.reason)
			if !strings.Contains(err.Error(), line) {
				t.Errorf("error text lacks %q:\n%s", line, err)
			}
		})
	}
}

func TestValidateFoldersRefusalText(t *testing.T) {
	tr := newTree(t)
	err := refuse(t, tr.p("own"), []string{"rel", tr.p("a"), "/nope-" + filepath.Base(tr.root), "", tr.p("link-own"), "/x\x00y", "/bad\xff"})
	want := strings.Join([]string{
		"invalid params (-32602): additionalDirectories refused",
		`  [0] "rel": not an absolute path`,
		`  [2] "/nope-` + filepath.Base(tr.root) + `": does not exist`,
		`  [3] "": empty path`,
		`  [4] "` + tr.p("link-own") + `": is the chat's own folder`,
		`  [5] "/x\x00y": contains a NUL byte`,
		`  [6] "/bad\xff": not valid UTF-8`,
	}, "\n")
	if err.Error() != want {
		t.Fatalf("error text:\n%s\nwant:\n%s", err, want)
	}
}

func refuse(t *testing.T, cwd string, dirs []string) *FolderError {
	t.Helper()
	got, err := ValidateFolders(cwd, dirs)
	if err == nil {
		t.Fatalf("ValidateFolders accepted %q", got)
	}
	fe, ok := AsFolderError(err)
	if !ok {
		t.Fatalf("error %T is not a *FolderError: %v", err, err)
	}
	if fe.Code() != -32602 {
		t.Fatalf("Code() = %d, want -32602", fe.Code())
	}
	return fe
}

func TestValidateFoldersListsEveryBadEntry(t *testing.T) {
	tr := newTree(t)
	dirs := []string{tr.p("a"), "", tr.p("b"), "relative", tr.p("file"), tr.p("dangling"), tr.p("own"), tr.p("link-a")}
	fe := refuse(t, tr.p("own"), dirs)
	want := []proto.FolderProblem{
		{Index: 1, Reason: "empty path"},
		{Index: 3, Path: "relative", Reason: "not an absolute path"},
		{Index: 4, Path: tr.p("file"), Reason: "not a directory"},
		{Index: 5, Path: tr.p("dangling"), Reason: "dangling symlink: its target does not exist"},
		{Index: 6, Path: tr.p("own"), Reason: "is the chat's own folder"},
	}
	if fmt.Sprint(fe.Problems) != fmt.Sprint(want) {
		t.Fatalf("problems:\n%v\nwant:\n%v", fe.Problems, want)
	}
	if fe.Count != len(dirs) || fe.TooMany || fe.Unlisted != 0 {
		t.Errorf("count/tooMany/unlisted = %d/%v/%d", fe.Count, fe.TooMany, fe.Unlisted)
	}
	// A wrapped refusal is still recognised.
	wrapped := fmt.Errorf("add folders to chat k3x9q2: %w", fe)
	if got, ok := AsFolderError(wrapped); !ok || got != fe {
		t.Errorf("AsFolderError(wrapped) = %v, %v", got, ok)
	}
	var target *FolderError
	if !errors.As(wrapped, &target) || target.Code() != proto.CodeInvalidParams {
		t.Errorf("errors.As on a wrapped refusal failed")
	}
}

func TestValidateFoldersSameFolderStoredOnce(t *testing.T) {
	tr := newTree(t)
	tests := []struct {
		name  string
		given []string
		want  []string
	}{
		{"two spellings", []string{tr.p("a"), tr.p("a") + "/"}, []string{tr.p("a")}},
		{"link then folder: first place kept", []string{tr.p("b"), tr.p("link-a"), tr.p("with space"), tr.p("a"), tr.p("chain1")},
			[]string{tr.p("b"), tr.p("a"), tr.p("with space")}},
		{"dot-dot spelling", []string{tr.p("deep/x"), tr.p("link-deep") + "/..", tr.p("deep/x/y/..")}, []string{tr.p("deep/x")}},
		{"order kept", []string{tr.p("with space"), tr.p("b"), tr.p("a")}, []string{tr.p("with space"), tr.p("b"), tr.p("a")}},
		{"empty list", []string{}, []string{}},
		{"nil list", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateFolders(tr.p("own"), tt.given)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateFoldersCwdThroughSymlink(t *testing.T) {
	tr := newTree(t)
	for _, cwd := range []string{tr.p("link-own"), tr.p("link-own") + "/", tr.p("a/../own"), tr.p("own") + "/"} {
		for _, d := range []string{tr.p("own"), tr.p("link-own")} {
			fe := refuse(t, cwd, []string{tr.p("a"), d})
			if len(fe.Problems) != 1 || fe.Problems[0].Index != 1 || fe.Problems[0].Reason != "is the chat's own folder" {
				t.Errorf("cwd %q, dir %q: problems %v", cwd, d, fe.Problems)
			}
		}
	}
	// A chat with no known cwd (empty) refuses nothing on that ground.
	if _, err := ValidateFolders("", []string{tr.p("own")}); err != nil {
		t.Errorf("empty cwd: %v", err)
	}
}

func makeDirs(t testing.TB, root string, n int) []string {
	t.Helper()
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = filepath.Join(root, fmt.Sprintf("d%03d", i))
		if err := os.MkdirAll(dirs[i], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

func TestValidateFoldersLimit(t *testing.T) {
	tr := newTree(t)
	dirs := makeDirs(t, tr.p("many"), MaxFolders+1)
	got, err := ValidateFolders(tr.p("own"), dirs[:64])
	if err != nil {
		t.Fatalf("64 folders refused: %v", err)
	}
	if len(got) != 64 {
		t.Fatalf("64 folders gave %d", len(got))
	}
	fe := refuse(t, tr.p("own"), dirs)
	if !fe.TooMany || fe.Count != 65 || fe.Kept != 65 || len(fe.Problems) != 0 {
		t.Fatalf("65 folders: %+v", fe)
	}
	if want := "65 folders given, at most 64 allowed"; !strings.Contains(fe.Error(), want) {
		t.Errorf("error lacks %q:\n%s", want, fe)
	}
	// With too many, entries that are bad on their face are still named.
	bad := append(append([]string(nil), dirs...), "relative")
	fe = refuse(t, tr.p("own"), bad)
	if len(fe.Problems) != 1 || fe.Problems[0] != (proto.FolderProblem{Index: 65, Path: "relative", Reason: "not an absolute path"}) {
		t.Errorf("problems %v", fe.Problems)
	}
}

// The limit is on the folders kept: the distinct canonical folders of the
// good entries, not the entries given.
func TestValidateFoldersCountsWhatItKeeps(t *testing.T) {
	tr := newTree(t)
	dirs := makeDirs(t, tr.p("many"), MaxFolders+1)
	if err := os.Symlink(dirs[3], tr.p("link-d003")); err != nil {
		t.Fatal(err)
	}
	// 70 entries, 64 folders: the six extra are the same folders again, spelt
	// as given, with a trailing slash, through a link, with "..".
	given := append([]string(nil), dirs[:64]...)
	given = append(given, dirs[0], dirs[1]+"/", tr.p("link-d003"), tr.p("many/d010/../d010"), dirs[63], dirs[0])
	got, err := ValidateFolders(tr.p("own"), given)
	if err != nil {
		t.Fatalf("70 entries that are 64 folders: %v", err)
	}
	if fmt.Sprint(got) != fmt.Sprint(dirs[:64]) {
		t.Errorf("kept %d folders, not the 64 in first-place order", len(got))
	}

	// 70 entries that are 65 folders: refused for the count kept.
	given[69] = dirs[64]
	fe := refuse(t, tr.p("own"), given)
	if !fe.TooMany || fe.Count != 70 || fe.Kept != 65 || len(fe.Problems) != 0 {
		t.Fatalf("65 distinct of 70: %+v", fe)
	}
	if want := "\n  70 folders given, 65 distinct, at most 64 allowed"; !strings.Contains(fe.Error(), want) {
		t.Errorf("error lacks %q:\n%s", want, fe)
	}

	// More than 64 kept and bad entries of every kind: each bad one is named
	// with its index, its text and the reason, as well as the count.
	given = append(append([]string(nil), dirs...), tr.p("nope"), tr.p("file"), "rel", tr.p("link-own"), tr.p("dangling"), dirs[5])
	fe = refuse(t, tr.p("own"), given)
	want := []proto.FolderProblem{
		{Index: 65, Path: tr.p("nope"), Reason: "does not exist"},
		{Index: 66, Path: tr.p("file"), Reason: "not a directory"},
		{Index: 67, Path: "rel", Reason: "not an absolute path"},
		{Index: 68, Path: tr.p("link-own"), Reason: "is the chat's own folder"},
		{Index: 69, Path: tr.p("dangling"), Reason: "dangling symlink: its target does not exist"},
	}
	if !fe.TooMany || fe.Kept != 65 || fmt.Sprint(fe.Problems) != fmt.Sprint(want) {
		t.Errorf("refusal %+v\nwant problems %v", fe, want)
	}
	for _, line := range []string{"71 folders given, 65 distinct, at most 64 allowed", "[65] \"" + tr.p("nope") + "\": does not exist", "[69] "} {
		if !strings.Contains(fe.Error(), line) {
			t.Errorf("error lacks %q:\n%s", line, fe)
		}
	}
	// 64 kept and bad ones: refused for the bad ones only.
	given = append(append([]string(nil), dirs[:64]...), "rel", dirs[0])
	fe = refuse(t, tr.p("own"), given)
	if fe.TooMany || fe.Kept != 64 || len(fe.Problems) != 1 || strings.Contains(fe.Error(), "allowed") {
		t.Errorf("64 and a bad one: %+v\n%s", fe, fe)
	}

	// Up to 1024 entries are read; one folder 1024 times is one folder.
	same := make([]string, maxGivenFolders)
	for i := range same {
		same[i] = tr.p("a") + strings.Repeat("/", 1+i%3)
	}
	if got, err := ValidateFolders(tr.p("own"), same); err != nil || len(got) != 1 {
		t.Errorf("one folder 1024 times: %q, %v", got, err)
	}
	// 1025 are refused unread, and entries bad on their face still named.
	same = append(same, "rel")
	fe = refuse(t, tr.p("own"), same)
	if !fe.TooMany || fe.Kept != 0 || len(fe.Problems) != 1 || fe.Problems[0].Index != 1024 {
		t.Errorf("1025 entries: %+v", fe)
	}
	if want := "1025 folders given, at most 64 allowed"; !strings.Contains(fe.Error(), want) {
		t.Errorf("error lacks %q:\n%s", want, fe)
	}
}

// The entries read are bounded in bytes too, where the old bound of 64
// entries of the longest path put them: resolving costs a system call per
// path component. 64 entries are never refused on their bytes.
func TestValidateFoldersBoundsBytes(t *testing.T) {
	tr := newTree(t)
	long := tr.p("a") + strings.Repeat("/.", (maxPathBytes-len(tr.p("a")))/2)
	if len(long) > maxPathBytes || len(long) < maxPathBytes-1 {
		t.Fatalf("path of %d bytes", len(long))
	}
	dirs := make([]string, MaxFolders)
	for i := range dirs {
		dirs[i] = long
	}
	if got, err := ValidateFolders(tr.p("own"), dirs); err != nil || len(got) != 1 {
		t.Fatalf("64 entries of %d bytes: %q, %v", len(long), got, err)
	}
	dirs = append(dirs, long, long)
	var err error
	allocs := testing.AllocsPerRun(5, func() { _, err = ValidateFolders(tr.p("own"), dirs) })
	fe, ok := AsFolderError(err)
	if !ok || !fe.TooMany || fe.Kept != 0 || len(fe.Problems) != 0 {
		t.Fatalf("66 entries of %d bytes: %v", len(long), err)
	}
	if want := "66 folders given, with more than 262144 bytes of paths in all; at most 64 folders allowed"; !strings.Contains(fe.Error(), want) {
		t.Errorf("error lacks %q:\n%s", want, fe)
	}
	if allocs > 10 {
		t.Errorf("refusing on the bytes made %.0f allocations: the entries were resolved", allocs)
	}
}

func TestFolderErrorRPCError(t *testing.T) {
	tr := newTree(t)
	fe := refuse(t, tr.p("own"), []string{"rel", tr.p("a"), tr.p("file")})
	var got struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
		Data    struct {
			Count    *int              `json:"count"`
			Kept     *int              `json:"kept"`
			Max      *int              `json:"max"`
			Entries  []json.RawMessage `json:"entries"`
			Unlisted *int              `json:"unlisted"`
		} `json:"data"`
	}
	raw := fe.RPCError()
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("RPCError is not JSON: %v\n%s", err, raw)
	}
	if got.Code == nil || *got.Code != -32602 || got.Message == nil || *got.Message == "" {
		t.Fatalf("code/message: %s", raw)
	}
	if *got.Data.Count != 3 || *got.Data.Max != 64 || got.Data.Unlisted != nil || *got.Data.Kept != 1 {
		t.Errorf("data: %s", raw)
	}
	wantEntries := []string{
		`{"index":0,"path":"rel","reason":"not an absolute path"}`,
		`{"index":2,"path":"` + tr.p("file") + `","reason":"not a directory"}`,
	}
	if len(got.Data.Entries) != len(wantEntries) {
		t.Fatalf("entries: %s", raw)
	}
	for i, e := range got.Data.Entries {
		if string(e) != wantEntries[i] {
			t.Errorf("entry %d = %s, want %s", i, e, wantEntries[i])
		}
	}

	// Too many folders, none bad on its face: entries is an empty array, not null.
	fe = refuse(t, tr.p("own"), makeDirs(t, tr.p("many"), 65))
	var tooMany map[string]any
	if err := json.Unmarshal(fe.RPCError(), &tooMany); err != nil {
		t.Fatal(err)
	}
	data := tooMany["data"].(map[string]any)
	if entries, ok := data["entries"].([]any); !ok || len(entries) != 0 {
		t.Errorf("entries = %#v, want []", data["entries"])
	}
	if data["count"] != float64(65) {
		t.Errorf("count = %v", data["count"])
	}
}

// allocBytes reports the bytes allocated by f. It runs alone (not parallel),
// so the figure is f's own.
func allocBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A refusal of hostile input must not look at the file system entry by entry.
// Every entry here names a real folder, so a validator that resolved each one
// would do 100,000 EvalSymlinks calls, each of which allocates; a validator
// that refuses on the count alone allocates a handful of times in all.
func TestRefuseHostileListWithoutFileSystem(t *testing.T) {
	tr := newTree(t)
	dirs := make([]string, 100_000)
	for i := range dirs {
		dirs[i] = tr.p("a")
	}
	var err error
	allocs := testing.AllocsPerRun(5, func() { _, err = ValidateFolders(tr.p("own"), dirs) })
	fe, ok := AsFolderError(err)
	if !ok || !fe.TooMany || fe.Count != 100_000 || len(fe.Problems) != 0 {
		t.Fatalf("100,000 real folders: %v", err)
	}
	if allocs > 100 {
		t.Errorf("refusing 100,000 entries made %.0f allocations: the validator touches each entry", allocs)
	}
	if n := len(fe.Error()); n > 200 {
		t.Errorf("error is %d bytes:\n%s", n, fe)
	}

	// 100,000 entries bad on their face: the listing is bounded, the rest counted.
	for i := range dirs {
		dirs[i] = fmt.Sprintf("rel/%d", i)
	}
	fe = refuse(t, tr.p("own"), dirs)
	if len(fe.Problems) != maxListedProblems || fe.Unlisted != 100_000-maxListedProblems {
		t.Fatalf("listed %d, unlisted %d", len(fe.Problems), fe.Unlisted)
	}
	if fe.Problems[99].Index != 99 || fe.Problems[99].Path != "rel/99" {
		t.Errorf("last listed: %+v", fe.Problems[99])
	}
	msg := fe.Error()
	if !strings.Contains(msg, "… and 99900 more bad entries") || len(msg) > 8<<10 {
		t.Errorf("error is %d bytes, tail %q", len(msg), msg[max(0, len(msg)-80):])
	}
	if n := len(fe.RPCError()); n > 16<<10 {
		t.Errorf("RPCError is %d bytes", n)
	}
}

func TestRefuseHugePathWithoutFileSystem(t *testing.T) {
	tr := newTree(t)
	// A 1 MB path below a real folder. Any file-system call on it copies it
	// into a NUL-terminated buffer, so asking the file system about even one
	// entry allocates a megabyte.
	huge := tr.p("a") + "/" + strings.Repeat("x", 1<<20)
	dirs := make([]string, MaxFolders)
	for i := range dirs {
		dirs[i] = huge
	}
	var err error
	used := allocBytes(func() { _, err = ValidateFolders(tr.p("own"), dirs) })
	fe := refuse(t, tr.p("own"), dirs)
	if err == nil || len(fe.Problems) != MaxFolders {
		t.Fatalf("64 entries of 1 MB: %v", err)
	}
	want := fmt.Sprintf("path is %d bytes, longer than the system allows (4095)", len(huge))
	if fe.Problems[0].Reason != want {
		t.Errorf("reason %q, want %q", fe.Problems[0].Reason, want)
	}
	if used > 256<<10 {
		t.Errorf("refusing 64 entries of 1 MB allocated %d bytes: the entries were copied or resolved", used)
	}
	if n := len(fe.Error()); n > 64*400 {
		t.Errorf("error is %d bytes: entries not clipped", n)
	}
	if !strings.HasPrefix(fe.Problems[0].Path, tr.p("a")) || !strings.HasSuffix(fe.Problems[0].Path, fmt.Sprintf("…(%d bytes)", len(huge))) {
		t.Errorf("clipped path %q", fe.Problems[0].Path)
	}
}

func TestClipKeepsUTF8Whole(t *testing.T) {
	s := "/" + strings.Repeat("é", 300)
	c := clip(s)
	if !strings.HasSuffix(c, fmt.Sprintf("…(%d bytes)", len(s))) {
		t.Fatalf("clip = %q", c)
	}
	if strings.ContainsRune(c, '\uFFFD') || !json.Valid([]byte(fmt.Sprintf("%q", c))) {
		t.Errorf("clip split a character: %q", c)
	}
	for _, r := range strings.TrimSuffix(c, fmt.Sprintf("…(%d bytes)", len(s))) {
		if r == '\uFFFD' {
			t.Fatalf("clip split a character: %q", c)
		}
	}
}

func TestCheckStoredFolders(t *testing.T) {
	tr := newTree(t)
	gone := tr.p("gone")
	moved := tr.p("moved")
	for _, d := range []string{gone, moved, tr.p("elsewhere")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stored := []string{tr.p("a"), gone, tr.p("b"), moved, tr.p("with space")}
	if bad := CheckStoredFolders(tr.p("own"), stored); len(bad) != 0 {
		t.Fatalf("all present: %v", bad)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	// A folder replaced by a link to somewhere else is not the folder stored.
	if err := os.Remove(moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tr.p("elsewhere"), moved); err != nil {
		t.Fatal(err)
	}
	want := []proto.FolderProblem{
		{Index: 1, Path: gone, Reason: "does not exist"},
		{Index: 3, Path: moved, Reason: `now resolves to "` + tr.p("elsewhere") + `"`},
	}
	if bad := CheckStoredFolders(tr.p("own"), stored); fmt.Sprint(bad) != fmt.Sprint(want) {
		t.Fatalf("bad = %v\nwant %v", bad, want)
	}
	// A stored folder that is now the chat's own folder (cwd given by a link).
	if bad := CheckStoredFolders(tr.p("link-a"), []string{tr.p("a")}); len(bad) != 1 || bad[0].Reason != "now resolves to the chat's own folder" {
		t.Errorf("own folder: %v", bad)
	}
}

func TestCanonical(t *testing.T) {
	tr := newTree(t)
	if c, err := Canonical(tr.p("chain1") + "/"); err != nil || c != tr.p("a") {
		t.Errorf("Canonical(chain1/) = %q, %v", c, err)
	}
	if _, err := Canonical(tr.p("file")); err == nil || err.Error() != "not a directory" {
		t.Errorf("Canonical(file) err = %v", err)
	}
}
