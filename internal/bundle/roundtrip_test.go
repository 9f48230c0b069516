package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// What Writer writes, Unpack gives back byte for byte: the manifest, the
// chat file and every conversation file, each as a 0600 file in dir.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	session := make([]byte, 3<<20)
	for i := range session {
		session[i] = byte(rng.UintN(256))
	}
	files := []struct {
		name string
		data []byte
	}{
		{SessionMember, session},
		{CapsuleMember, []byte("# handed over\n\nthe goal was to fix the parser\n")},
		{ScrollbackMember, nil},
	}
	m := testManifest(SessionMember, CapsuleMember, ScrollbackMember)
	m.Notes = []string{"an ACP turn was in progress: exported up to its last complete update"}
	var out bytes.Buffer
	w, err := NewWriter(&out, m)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	if err := w.Add(ChatName, int64(len(testChat)), bytes.NewReader(testChat)); err != nil {
		t.Fatalf("Add chat.toml: %v", err)
	}
	for _, f := range files {
		if err := w.Add(f.name, int64(len(f.data)), bytes.NewReader(f.data)); err != nil {
			t.Fatalf("Add %s: %v", f.name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	dir := t.TempDir()
	u, err := Unpack(bytes.NewReader(out.Bytes()), dir, DefaultLimits)
	if err != nil {
		t.Fatalf("Unpack of what Writer wrote: %v", err)
	}
	if !reflect.DeepEqual(u.Manifest, m) {
		t.Errorf("manifest came back as\n%+v\nwant\n%+v", u.Manifest, m)
	}
	if !bytes.Equal(u.Chat, testChat) {
		t.Errorf("chat.toml came back as %q, want %q", u.Chat, testChat)
	}
	if u.Dir != dir {
		t.Errorf("Dir = %q, want %q", u.Dir, dir)
	}
	want := []string{SessionMember, CapsuleMember, ScrollbackMember}
	if !reflect.DeepEqual(u.Conversation, want) {
		t.Errorf("Conversation = %q, want %q", u.Conversation, want)
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read unpacked %s: %v", f.name, err)
		}
		if !bytes.Equal(got, f.data) {
			t.Errorf("%s came back as %d bytes that differ from the %d written", f.name, len(got), len(f.data))
		}
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s unpacked with mode %v, want a regular file, 0600", f.name, fi.Mode())
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != ConversationDir {
		t.Errorf("the staging folder holds %v, want conversation/ alone", entries)
	}
	if fi, err := os.Lstat(filepath.Join(dir, ConversationDir)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("conversation/ unpacked as %v (%v), want a 0700 folder", fi.Mode(), err)
	}
}

// A bundle with a conversation/ folder entry, as tar tools write it, and
// no conversation at all, unpacks.
func TestUnpackTakesFolderEntryAndNoConversation(t *testing.T) {
	m := testManifest()
	m.Conversation, m.Source = KindNone, SourceNone
	for _, name := range []string{"conversation/", "conversation"} {
		dir := t.TempDir()
		u, err := Unpack(bytes.NewReader(craft(t, manifestMember(t, m), regular(ChatName, testChat), special(name, tar.TypeDir, ""))), dir, Limits{})
		if err != nil {
			t.Fatalf("a bundle with a %q folder entry and no conversation: %v", name, err)
		}
		if len(u.Conversation) != 0 || !bytes.Equal(u.Chat, testChat) {
			t.Errorf("unpacked %q and chat %q, want no conversation and the chat", u.Conversation, u.Chat)
		}
		mustBeEmpty(t, dir)
	}
}

// Writer keeps the format's rules: members in the manifest's order, each
// exactly its size, nothing past it read, every listed member added.
func TestWriterRules(t *testing.T) {
	start := func(t *testing.T, conv ...string) (*Writer, *bytes.Buffer) {
		var out bytes.Buffer
		w, err := NewWriter(&out, testManifest(conv...))
		if err != nil {
			t.Fatalf("NewWriter: %v", err)
		}
		return w, &out
	}
	t.Run("short source", func(t *testing.T) {
		w, _ := start(t)
		src := &countingReader{r: strings.NewReader("version = 1\n")}
		err := w.Add(ChatName, 100, src)
		if err == nil || !strings.Contains(err.Error(), "ended after 12 of 100 bytes") {
			t.Fatalf("Add of a 12-byte source as 100 bytes returned %v, want it refused as short", err)
		}
		if src.n != 12 {
			t.Errorf("Add read %d bytes of a 12-byte source", src.n)
		}
		if err := w.Close(); err == nil {
			t.Error("Close after a short member succeeded; the bundle is broken")
		}
	})
	t.Run("long source", func(t *testing.T) {
		w, out := start(t)
		src := bytes.NewReader(append(append([]byte(nil), testChat...), "more than was asked for"...))
		if err := w.Add(ChatName, int64(len(testChat)), src); err != nil {
			t.Fatal(err)
		}
		if src.Len() != len("more than was asked for") {
			t.Errorf("Add read %d bytes past the member's size", len("more than was asked for")-src.Len())
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		u, err := Unpack(bytes.NewReader(out.Bytes()), t.TempDir(), Limits{})
		if err != nil {
			t.Fatalf("unpack: %v", err)
		}
		if !bytes.Equal(u.Chat, testChat) {
			t.Fatalf("unpacked chat %q, want %q", u.Chat, testChat)
		}
	})
	t.Run("out of order", func(t *testing.T) {
		w, _ := start(t, SessionMember)
		if err := w.Add(SessionMember, 0, strings.NewReader("")); err == nil || !strings.Contains(err.Error(), `lists "chat.toml" next`) {
			t.Fatalf("Add of the conversation before chat.toml returned %v", err)
		}
	})
	t.Run("unlisted", func(t *testing.T) {
		w, _ := start(t)
		if err := w.Add(ChatName, 0, strings.NewReader("")); err != nil {
			t.Fatal(err)
		}
		if err := w.Add(SessionMember, 0, strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "lists no more members") {
			t.Fatalf("Add of an unlisted member returned %v", err)
		}
	})
	t.Run("not all added", func(t *testing.T) {
		w, _ := start(t, SessionMember)
		if err := w.Add(ChatName, 0, strings.NewReader("")); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err == nil || !strings.Contains(err.Error(), `"conversation/session.jsonl" is listed in the manifest but was not added`) {
			t.Fatalf("Close with a listed member missing returned %v", err)
		}
	})
	t.Run("chat over the limit", func(t *testing.T) {
		w, _ := start(t)
		if err := w.Add(ChatName, 2<<20, zeros{}); err == nil || !strings.Contains(err.Error(), "over the chat file limit") {
			t.Fatalf("Add of a 2 MiB chat.toml returned %v", err)
		}
	})
	t.Run("member over the limit", func(t *testing.T) {
		w, _ := start(t, SessionMember)
		if err := w.Add(ChatName, 0, strings.NewReader("")); err != nil {
			t.Fatal(err)
		}
		if err := w.Add(SessionMember, DefaultLimits.MemberBytes+1, zeros{}); err == nil || !strings.Contains(err.Error(), "over the") {
			t.Fatalf("Add of a member over DefaultLimits returned %v", err)
		}
	})
	t.Run("bad manifest", func(t *testing.T) {
		for _, edit := range []func(*Manifest){
			func(m *Manifest) { m.ChatID = "../x" },
			func(m *Manifest) { m.Format = 2 },
			func(m *Manifest) { m.Members = []string{SessionMember} },
			func(m *Manifest) { m.Members = append(m.Members, "../x") },
			func(m *Manifest) { m.Conversation = "maybe" },
		} {
			m := testManifest()
			edit(&m)
			if _, err := NewWriter(io.Discard, m); err == nil {
				t.Errorf("NewWriter took the manifest %+v", m)
			}
		}
	})
	t.Run("any export time", func(t *testing.T) {
		for _, when := range []time.Time{{}, time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC)} {
			m := testManifest()
			m.Exported = when
			var out bytes.Buffer
			w, err := NewWriter(&out, m)
			if err != nil {
				t.Fatalf("NewWriter with exported %v: %v", when, err)
			}
			if err := w.Add(ChatName, int64(len(testChat)), bytes.NewReader(testChat)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			u, err := Unpack(bytes.NewReader(out.Bytes()), t.TempDir(), Limits{})
			if err != nil {
				t.Fatalf("a bundle exported at %v does not unpack: %v", when, err)
			}
			if !u.Manifest.Exported.Equal(when) {
				t.Errorf("exported %v came back as %v", when, u.Manifest.Exported)
			}
		}
	})
	t.Run("close leaves the writer open", func(t *testing.T) {
		out := &closeRecorder{}
		w, err := NewWriter(out, testManifest())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(ChatName, int64(len(testChat)), bytes.NewReader(testChat)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.closed {
			t.Error("Writer.Close closed the underlying writer")
		}
		if _, err := Unpack(bytes.NewReader(out.Bytes()), t.TempDir(), Limits{}); err != nil {
			t.Errorf("what Writer wrote does not unpack: %v", err)
		}
	})
}

// closeRecorder is a buffer that records whether it was closed.
type closeRecorder struct {
	bytes.Buffer
	closed bool
}

func (c *closeRecorder) Close() error {
	c.closed = true
	return nil
}

// A symbolic link planted in the staging folder beforehand is not
// followed: Unpack refuses the folder and writes nothing where it points.
func TestUnpackDoesNotFollowPlantedSymlink(t *testing.T) {
	data := craft(t, manifestMember(t, testManifest(SessionMember)), regular(ChatName, testChat), regular(SessionMember, []byte("{}\n")))
	elsewhere := t.TempDir()
	dir := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, ConversationDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := Unpack(bytes.NewReader(data), dir, Limits{}); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Fatalf("Unpack into a folder holding a planted link returned %v, want it refused", err)
	}
	mustBeEmpty(t, elsewhere)
	if target, err := os.Readlink(filepath.Join(dir, ConversationDir)); err != nil || target != elsewhere {
		t.Errorf("the planted link is now %q (%v); Unpack removes only what it wrote", target, err)
	}

	// The staging folder itself a link is refused too.
	link := filepath.Join(t.TempDir(), "staging")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Unpack(bytes.NewReader(data), link, Limits{}); err == nil {
		t.Fatal("Unpack into a staging folder that is a symbolic link succeeded")
	}
	mustBeEmpty(t, elsewhere)
}

// A link planted while Unpack runs (between its look at the folder and
// its writes) is not followed either: every file is made with O_EXCL and
// O_NOFOLLOW relative to the open folder.
func TestStageDoesNotFollowLinksPlantedLater(t *testing.T) {
	elsewhere := t.TempDir()
	t.Run("conversation folder", func(t *testing.T) {
		dir := t.TempDir()
		st, err := openStage(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, filepath.Join(dir, ConversationDir)); err != nil {
			t.Fatal(err)
		}
		if f, err := st.create(SessionMember); err == nil {
			_ = f.Close()
			t.Fatal("create went through a planted conversation link")
		} else if !errors.Is(err, unix.EEXIST) {
			t.Errorf("create refused with %v, want EEXIST", err)
		}
		st.remove()
		mustBeEmpty(t, elsewhere)
		if _, err := os.Readlink(filepath.Join(dir, ConversationDir)); err != nil {
			t.Errorf("remove took away a link it did not make: %v", err)
		}
	})
	t.Run("conversation file", func(t *testing.T) {
		dir := t.TempDir()
		st, err := openStage(dir)
		if err != nil {
			t.Fatal(err)
		}
		f, err := st.create(CapsuleMember)
		if err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
		target := filepath.Join(elsewhere, "session.jsonl")
		if err := os.Symlink(target, filepath.Join(dir, SessionMember)); err != nil {
			t.Fatal(err)
		}
		if f, err := st.create(SessionMember); err == nil {
			_ = f.Close()
			t.Fatal("create went through a planted file link")
		}
		if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a file appeared where the planted link points: %v", err)
		}
		st.remove()
		if _, err := os.Lstat(filepath.Join(dir, CapsuleMember)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("remove left the file it made: %v", err)
		}
	})
}
