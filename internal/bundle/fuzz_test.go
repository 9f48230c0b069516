package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
)

var update = flag.Bool("update", false, "rewrite the seed corpus in testdata/fuzz/FuzzUnpack")

// fuzzLimits keep each fuzzed unpack small.
var fuzzLimits = Limits{Members: 8, MemberBytes: 64 << 10, TotalBytes: 128 << 10}

// Any bytes given to Unpack never panic; a refusal leaves the staging
// folder empty; an accepted bundle wrote only conversation files, inside
// the folder, within the limits, and nothing beside it. The seed corpus is
// in testdata/fuzz/FuzzUnpack (written by TestFuzzUnpackSeeds -update).
func FuzzUnpack(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "staging")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		u, err := Unpack(bytes.NewReader(data), dir, fuzzLimits)
		if entries, rerr := os.ReadDir(parent); rerr != nil || len(entries) != 1 {
			t.Fatalf("beside the staging folder Unpack left %v (%v)", entries, rerr)
		}
		if err != nil {
			var be *Error
			if !errors.As(err, &be) {
				t.Fatalf("refused with %T %v, want a *bundle.Error", err, err)
			}
			if be.Error() == "" || be.Reason == "" {
				t.Fatalf("a refusal that says nothing: %#v", be)
			}
			mustBeEmpty(t, dir)
			return
		}
		checkUnpacked(t, u, dir)
	})
}

// checkUnpacked fails unless dir holds exactly u's conversation files,
// regular, 0600, under conversation/, within fuzzLimits.
func checkUnpacked(t *testing.T, u *Unpacked, dir string) {
	t.Helper()
	if !sessions.ValidID(u.Manifest.ChatID) || u.Manifest.Format != FormatVersion {
		t.Fatalf("accepted a manifest with chat id %q, format %d", u.Manifest.ChatID, u.Manifest.Format)
	}
	if len(u.Chat) > sessions.MaxChatFileBytes || len(u.Conversation)+2 > fuzzLimits.Members {
		t.Fatalf("accepted a %d-byte chat and %d conversation files", len(u.Chat), len(u.Conversation))
	}
	var found []string
	total := int64(len(u.Chat))
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		switch {
		case rel == ".":
		case rel == ConversationDir && fi.IsDir():
		case fi.Mode().IsRegular() && fi.Mode().Perm() == 0o600 && allowedName(rel) == "" && strings.HasPrefix(rel, ConversationDir+"/"):
			if fi.Size() > fuzzLimits.MemberBytes {
				t.Errorf("%s unpacked to %d bytes, over the member limit", rel, fi.Size())
			}
			total += fi.Size()
			found = append(found, rel)
		default:
			t.Errorf("Unpack made %s, mode %v", rel, fi.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk the staging folder: %v", err)
	}
	if total > fuzzLimits.TotalBytes {
		t.Errorf("unpacked %d bytes, over the total limit", total)
	}
	want := slices.Clone(u.Conversation)
	slices.Sort(want)
	if !slices.Equal(found, want) {
		t.Errorf("the staging folder holds %q, Unpack says %q", found, u.Conversation)
	}
}

// fuzzSeeds are the seed corpus of FuzzUnpack: a valid bundle or two, and
// crafted ones that reach each refusal's code. A seed whose name starts
// with "valid" unpacks under fuzzLimits; every other is refused.
func fuzzSeeds(t testing.TB) map[string][]byte {
	conv := SessionMember
	head := func(m Manifest) []member {
		return []member{manifestMember(t, m), regular(ChatName, testChat)}
	}
	full := craft(t, append(head(testManifest(conv, CapsuleMember)), regular(conv, []byte("{\"type\":\"user\"}\n")), regular(CapsuleMember, []byte("# capsule\n")))...)
	none := testManifest()
	none.Conversation, none.Source = KindNone, SourceNone
	newer := testManifest()
	newer.Format = 2
	badID := testManifest()
	badID.ChatID = "../x"
	var listed []string
	for i := range fuzzLimits.Members - 2 {
		listed = append(listed, fmt.Sprintf("conversation/f%d", i))
	}
	many := head(testManifest(listed...))
	for i := range 3 * fuzzLimits.Members {
		many = append(many, regular(fmt.Sprintf("conversation/f%d", i), nil))
	}
	return map[string][]byte{
		"valid-exact":        full,
		"valid-folder-entry": craft(t, append(head(none), special("conversation/", tar.TypeDir, ""))...),
		"truncated":          full[:len(full)/2],
		"trailer-cut":        full[:len(full)-4],
		"symlink":            craft(t, append(head(testManifest(conv)), special(conv, tar.TypeSymlink, "/etc/passwd"))...),
		"hardlink":           craft(t, append(head(testManifest(conv)), special(conv, tar.TypeLink, "chat.toml"))...),
		"fifo":               craft(t, append(head(testManifest(conv)), special(conv, tar.TypeFifo, ""))...),
		"climbing":           craft(t, append(head(testManifest(conv)), regular("../../etc/passwd", []byte("x")))...),
		"absolute":           craft(t, append(head(testManifest(conv)), regular("/etc/passwd", []byte("x")))...),
		"directory":          craft(t, append(head(testManifest(conv)), special("etc/", tar.TypeDir, ""))...),
		"twice":              craft(t, append(head(testManifest(conv)), regular(conv, nil), regular(conv, nil))...),
		"unlisted":           craft(t, append(head(testManifest()), regular(conv, nil))...),
		"manifest-not-first": craft(t, regular(ChatName, testChat), manifestMember(t, testManifest())),
		"manifest-not-json":  craft(t, regular(ManifestName, []byte("{\"format\":1,")), regular(ChatName, testChat)),
		"newer-format":       craft(t, head(newer)...),
		"bad-chat-id":        craft(t, head(badID)...),
		"no-chat":            craft(t, manifestMember(t, testManifest())),
		"many-members":       craft(t, many...),
		"over-member-limit":  craft(t, append(head(testManifest(conv)), regular(conv, make([]byte, fuzzLimits.MemberBytes+1)))...),
		"not-gzip":           []byte("not a bundle\n"),
		"plain-tar":          craftTar(t, head(testManifest())...),
	}
}

// The seed corpus on disk is what fuzzSeeds makes (rewritten with
// -update), and each seed does what its name says.
func TestFuzzUnpackSeeds(t *testing.T) {
	corpus := filepath.Join("testdata", "fuzz", "FuzzUnpack")
	seeds := fuzzSeeds(t)
	if *update {
		if err := os.MkdirAll(corpus, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range seeds {
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
			if err := os.WriteFile(filepath.Join(corpus, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name := range seeds {
		raw, err := os.ReadFile(filepath.Join(corpus, name))
		if err != nil {
			t.Fatalf("seed %s: %v (write the corpus with go test -run TestFuzzUnpackSeeds -update)", name, err)
		}
		text, ok := strings.CutPrefix(string(raw), "go test fuzz v1\n[]byte(")
		text, ok2 := strings.CutSuffix(text, ")\n")
		if !ok || !ok2 {
			t.Fatalf("seed %s is not one []byte in the go fuzz corpus format", name)
		}
		quoted, err := strconv.Unquote(text)
		if err != nil {
			t.Fatalf("seed %s: %v", name, err)
		}
		data := []byte(quoted)
		dir := t.TempDir()
		u, err := Unpack(bytes.NewReader(data), dir, fuzzLimits)
		switch valid := strings.HasPrefix(name, "valid"); {
		case valid && err != nil:
			t.Errorf("seed %s is refused: %v", name, err)
		case valid:
			if !bytes.Equal(u.Chat, testChat) {
				t.Errorf("seed %s unpacks chat %q", name, u.Chat)
			}
		case err == nil:
			t.Errorf("seed %s is accepted; it was made to be refused", name)
		default:
			mustBeEmpty(t, dir)
		}
	}
}
