package sessions

import (
	"os"
	"strings"
	"testing"
)

// A capsule is stored with its chat (0600, before the chat file), claimed
// once, put back after a failed start, refused when too big, and removed
// with the chat.
func TestCapsuleIsStoredClaimedOnceAndRemoved(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(NewChat{Harness: "codex", Capsule: strings.Repeat("x", MaxCapsuleBytes+1)}); err == nil {
		t.Fatal("a capsule over 64 KiB was stored")
	}
	m, err := s.Create(NewChat{Harness: "codex", Capsule: "# capsule\n"})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Capsule {
		t.Error("the chat is not marked as having a capsule")
	}
	fi, err := os.Lstat(s.HandoffPath(m.ID))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("capsule file: %v %v", fi, err)
	}
	text, err := s.ClaimCapsule(m.ID)
	if err != nil || text != "# capsule\n" {
		t.Fatalf("claim: %q %v", text, err)
	}
	if again, err := s.ClaimCapsule(m.ID); err != nil || again != "" {
		t.Fatalf("second claim: %q %v", again, err)
	}
	if err := s.UnclaimCapsule(m.ID); err != nil {
		t.Fatal(err)
	}
	if text, sent, _ := s.Capsule(m.ID); sent || text != "# capsule\n" {
		t.Fatalf("after unclaim: %q sent=%v", text, sent)
	}
	if _, err := s.ClaimCapsule(m.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(m.ID, false); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.HandoffPath(m.ID), s.HandoffSentPath(m.ID)} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s left after rm", p)
		}
	}
}

// A capsule file swapped for a symbolic link is never followed.
func TestCapsuleLinkIsNotFollowed(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Create(NewChat{Harness: "codex", Capsule: "# capsule\n"})
	if err != nil {
		t.Fatal(err)
	}
	secret := t.TempDir() + "/secret"
	os.WriteFile(secret, []byte("SECRET"), 0o600)
	os.Remove(s.HandoffPath(m.ID))
	if err := os.Symlink(secret, s.HandoffPath(m.ID)); err != nil {
		t.Fatal(err)
	}
	if text, err := s.ClaimCapsule(m.ID); err == nil || strings.Contains(text, "SECRET") {
		t.Fatalf("claim through a link: %q %v", text, err)
	}
}

// No capsule reaches a harness with a bidirectional control in it: one
// given to the store is stored without them, and one edited by hand into
// the file afterwards is claimed without them.
func TestCapsuleLosesBidiControls(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Create(NewChat{Harness: "codex", Capsule: "# capsule\nrun \u202etxt.exe\u202c and \u2066isolated\u2069\n"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.HandoffPath(m.ID))
	if err != nil || string(data) != "# capsule\nrun txt.exe and isolated\n" {
		t.Fatalf("stored capsule %q (%v)", data, err)
	}
	if err := os.WriteFile(s.HandoffPath(m.ID), []byte("edited \u202aby\u202b hand\u202d\u2067\u2068\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if text, err := s.ClaimCapsule(m.ID); err != nil || text != "edited by hand\n" {
		t.Fatalf("claimed %q (%v)", text, err)
	}
	for in, want := range map[string]string{"": "", "plain é": "plain é", "\u202a": "", "a\u2069": "a", "\xe2\x80": "\xe2\x80", "\u2065\u206a\u2029": "\u2065\u206a\u2029",
		// taking one out must not join its neighbours into another
		"\xe2\x80\u202e\xae": "", "\xe2\xe2\x80\u202e\xae\x80\xaex": "x", "\xe2\x81\u2066\xa9\xe2": "\xe2"} {
		if got := StripBidi(in); got != want {
			t.Errorf("StripBidi(%q) = %q, want %q", in, got, want)
		}
	}
}
