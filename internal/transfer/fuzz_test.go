package transfer

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/bundle"
)

// FuzzImport imports arbitrary bytes as a bundle. It never panics; a
// refused or failed import leaves the agent home as it was; one that goes
// through made exactly one chat whose folder and folders lie inside the
// root, and nothing outside the agent home and the user's HOME was
// written. Seeds: testdata/fuzz/FuzzImport and the crafted bundles below.
func FuzzImport(f *testing.F) {
	f.Add(craftSeed(f, false))
	f.Add(craftSeed(f, true))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0x00})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		w := newWorld(t)
		before := w.snapshot()
		outsideBefore, _ := os.ReadDir(w.outside)
		rep, err := Import(bytes.NewReader(data), w.importOptions(w.src))
		if err != nil {
			if after := w.snapshot(); !slices.Equal(before, after) {
				t.Fatalf("a failed import (%v) changed the agent home:\nbefore %q\nafter  %q", err, before, after)
			}
			return
		}
		m, lerr := w.store.Load(rep.ID)
		if lerr != nil {
			t.Fatalf("imported chat %s: %v", rep.ID, lerr)
		}
		if !within(w.src, m.Cwd) && !w.store.NoProject(m) {
			t.Fatalf("imported cwd %s is outside the root", m.Cwd)
		}
		for _, d := range append(append([]string{}, m.AdditionalDirectories...), m.AdditionalFiles...) {
			if !within(w.src, d) {
				t.Fatalf("imported entry %s is outside the root", d)
			}
		}
		if after, _ := os.ReadDir(w.outside); len(after) != len(outsideBefore) {
			t.Fatal("an import wrote outside the agent home")
		}
		if _, err := os.Stat(filepath.Join(w.home, StagingDir)); !os.IsNotExist(err) {
			t.Fatalf("staging left behind: %v", err)
		}
	})
}

// craftSeed is a good bundle whose chat lives under /tmp/fuzz-src (not a
// root of any fuzz run, so the import is refused on its cwd) or, with
// noProject, one that is imported.
func craftSeed(f *testing.F, noProject bool) []byte {
	m := bundle.Manifest{Format: 1, ChatID: "k3x9q2", Harness: "shell", Conversation: bundle.KindCapsule,
		Source: bundle.SourceScrollback, NoProject: noProject, Members: []string{bundle.ChatName, bundle.ScrollbackMember}}
	chat := chatTOML("k3x9q2", "seed", "shell", "/tmp/fuzz-src/app", []string{"/tmp/fuzz-src/lib", "/etc"}, nil)
	var buf bytes.Buffer
	bw, err := bundle.NewWriter(&buf, m)
	if err != nil {
		f.Fatal(err)
	}
	for _, mem := range [][2]string{{bundle.ChatName, chat}, {bundle.ScrollbackMember, "$ ls\nREADME\n"}} {
		if err := bw.Add(mem[0], int64(len(mem[1])), bytes.NewReader([]byte(mem[1]))); err != nil {
			f.Fatal(err)
		}
	}
	if err := bw.Close(); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}
