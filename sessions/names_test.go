package sessions

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestDerivedNamesAreTheirOwn: every chat made from "zap" gets a name no
// other chat has, and each of those names, and the parent's, finds its
// own chat as an ID argument (an exact name wins over a prefix).
func TestDerivedNamesAreTheirOwn(t *testing.T) {
	s := openStore(t)
	zap, err := s.Create(NewChat{Harness: "shell", Name: "zap"})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		d    Derivation
		want string
	}{
		{Derivation{Origin: OriginFork}, "zap · fork"},
		{Derivation{Origin: OriginSide}, "zap · side"},
		{Derivation{Origin: OriginFork}, "zap · fork 2"},
		{Derivation{Origin: OriginHandoff, Harness: "codex"}, "zap → codex"},
		{Derivation{Origin: OriginHandoff, Harness: "codex"}, "zap → codex 2"},
		{Derivation{Origin: OriginSide}, "zap · side 2"},
	}
	made := map[string]string{"zap": zap.ID}
	for _, st := range steps {
		// The parent is found by its name each time, though every name
		// made so far starts with it.
		parent, err := s.Resolve("zap")
		if err != nil {
			t.Fatalf("before %s: resolve zap: %v", st.want, err)
		}
		if parent.ID != zap.ID {
			t.Fatalf("zap resolved to %s, want %s", parent.ID, zap.ID)
		}
		m, err := s.Derive(parent.ID, st.d)
		if err != nil {
			t.Fatalf("%s: %v", st.want, err)
		}
		if m.Name != st.want {
			t.Errorf("%s of zap named %q, want %q", st.d.Origin, m.Name, st.want)
		}
		made[m.Name] = m.ID
	}
	for name, id := range made {
		e, err := s.Resolve(name)
		if err != nil || e.ID != id {
			t.Errorf("resolve %q = %s, %v; want %s", name, e.ID, err, id)
		}
	}
	// A prefix that several names share is still ambiguous.
	if _, err := s.Resolve("zap ·"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("resolve of a shared prefix: %v, want ambiguous", err)
	}
	// An import of zap (the import command names it the same way).
	if name, err := s.DerivedName(zap, OriginImport, ""); err != nil || name != "zap · import" {
		t.Errorf("import of zap named %q, %v; want %q", name, err, "zap · import")
	}
	// A name given explicitly is kept as it is.
	m, err := s.Derive(zap.ID, Derivation{Origin: OriginFork, Name: "mine"})
	if err != nil || m.Name != "mine" {
		t.Errorf("fork named mine: %v, %v", m, err)
	}
}

func TestRename(t *testing.T) {
	s := openStore(t)
	a, err := s.Create(NewChat{Harness: "shell", Name: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Create(NewChat{Harness: "shell", Name: "beta"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Rename(a.ID, "the parser, again")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "the parser, again" {
		t.Errorf("renamed to %q", m.Name)
	}
	if got, err := s.Load(a.ID); err != nil || got.Name != "the parser, again" || got.Created != a.Created || got.Harness != "shell" {
		t.Errorf("stored after rename: %+v, %v", got, err)
	}
	if _, err := s.Rename(a.ID, "the parser, again"); err != nil {
		t.Errorf("renaming a chat to its own name: %v", err)
	}
	refused := []struct{ name, reason string }{
		{"", "cannot be empty"},
		{"   ", "cannot be empty"},
		{strings.Repeat("x", 5000), "name is 5000 bytes, at most 1024"},
		{"two\nlines", "control character"},
		{"bell\a", "control character"},
		{"bad \xff byte", "not valid UTF-8"},
		{"invoice \u202egpj.exe", `name "invoice \u202egpj.exe" has a bidirectional formatting character (U+202E RIGHT-TO-LEFT OVERRIDE)`},
		{"beta", "chat " + b.ID + " is already named \"beta\""},
	}
	for _, tt := range refused {
		before, _ := os.ReadFile(s.ChatPath(a.ID))
		_, err := s.Rename(a.ID, tt.name)
		if _, ok := AsNameError(err); !ok || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("rename to %.20q: %v, want a name refusal saying %q", tt.name, err, tt.reason)
		}
		if after, _ := os.ReadFile(s.ChatPath(a.ID)); string(after) != string(before) {
			t.Errorf("rename to %.20q changed the file", tt.name)
		}
	}
	if _, err := s.Rename("nosuch", "x"); err == nil {
		t.Error("rename of a chat that does not exist succeeded")
	}
	// A broken file is never rewritten.
	broken := s.ChatPath("brok3n")
	if err := os.WriteFile(broken, []byte("not = [toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rename("brok3n", "fixed"); err == nil {
		t.Error("rename of a broken chat file succeeded")
	}
	if data, _ := os.ReadFile(broken); string(data) != "not = [toml" {
		t.Errorf("broken file rewritten: %q", data)
	}
}

// TestCreateRefusesABadName: a name refused at creation is a NameError, so
// the command line exits 2 for it like any other refusal.
func TestCreateRefusesABadName(t *testing.T) {
	s := openStore(t)
	for _, name := range []string{strings.Repeat("n", 5000), "tab\there", "  ", "left\u2066isolate"} {
		_, err := s.Create(NewChat{Harness: "shell", Name: name})
		if _, ok := AsNameError(err); !ok {
			t.Errorf("create named %.20q: %v, want a NameError", name, err)
		}
	}
	list, _ := s.List()
	if len(list) != 0 {
		t.Errorf("%d chats after refusals, want 0", len(list))
	}
}

// bidiControls are the bidirectional formatting characters, each with the
// name a refusal gives it.
var bidiControls = []struct {
	r    rune
	name string
}{
	{'\u061c', "ARABIC LETTER MARK"},
	{'\u200e', "LEFT-TO-RIGHT MARK"},
	{'\u200f', "RIGHT-TO-LEFT MARK"},
	{'\u202a', "LEFT-TO-RIGHT EMBEDDING"},
	{'\u202b', "RIGHT-TO-LEFT EMBEDDING"},
	{'\u202c', "POP DIRECTIONAL FORMATTING"},
	{'\u202d', "LEFT-TO-RIGHT OVERRIDE"},
	{'\u202e', "RIGHT-TO-LEFT OVERRIDE"},
	{'\u2066', "LEFT-TO-RIGHT ISOLATE"},
	{'\u2067', "RIGHT-TO-LEFT ISOLATE"},
	{'\u2068', "FIRST STRONG ISOLATE"},
	{'\u2069', "POP DIRECTIONAL ISOLATE"},
}

// TestCheckNameRefusesBidiControls: a name holding a bidirectional
// formatting character (an override would show "invoice \u202egpj.exe" as
// "invoice exe.jpg" in every list) is refused as a control character is,
// and the refusal names the character; the characters of ordinary names
// in other scripts, an emoji sequence's joiner among them, are not.
func TestCheckNameRefusesBidiControls(t *testing.T) {
	for _, c := range bidiControls {
		for _, name := range []string{string(c.r) + "lead", "mid" + string(c.r) + "dle", "trail" + string(c.r)} {
			err := CheckName(name)
			ne, ok := AsNameError(err)
			want := fmt.Sprintf("(%U %s)", c.r, c.name)
			if !ok || !strings.Contains(err.Error(), "bidirectional formatting character "+want) {
				t.Errorf("CheckName(%q) = %v, want a name refusal naming %s", name, err, want)
				continue
			}
			if ne.Code() != proto.CodeInvalidParams || strings.ContainsRune(err.Error(), c.r) {
				t.Errorf("CheckName(%q): code %d, message %q (the character itself must not be in it)", name, ne.Code(), err)
			}
		}
	}
	for _, name := range []string{"שלום עולם", "مرحبا بالعالم", "日本語のチャット", "👩\u200d💻 pairing", "zero\u200bwidth"} {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v, want it accepted", name, err)
		}
	}
}

// TestStoredBidiNameIsBroken: a chat file already on disk whose name holds
// a bidirectional formatting character (written by hand, or by a version
// that took one) is treated as one whose name holds a control character:
// listed as broken with the reason, loaded as an error, never rewritten.
func TestStoredBidiNameIsBroken(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ id, name, want string }{
		{"ctlname", `a\u0007b`, `name "a\ab" has a control character (U+0007)`},
		{"bidiname", `invoice \u202Egpj.exe`, `name "invoice \u202egpj.exe" has a bidirectional formatting character (U+202E RIGHT-TO-LEFT OVERRIDE)`},
		{"marknme", `a\u200Fb`, `(U+200F RIGHT-TO-LEFT MARK)`},
	} {
		s := openStore(t)
		text := strings.Replace(chatText(tc.id, "n", "/", created), `name = "n"`, `name = "`+tc.name+`"`, 1)
		path := s.ChatPath(tc.id)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		entries := listWithin(t, s)
		if len(entries) != 1 || entries[0].Meta != nil {
			t.Fatalf("%s: listed as %+v, want one broken entry", tc.id, entries)
		}
		checkBroken(t, tc.id+": List", entries[0].Broken, tc.want)
		if got := entries[0].JSON("stopped", "none").Status; got != "broken" {
			t.Errorf("%s: status %q, want broken", tc.id, got)
		}
		_, err := s.Load(tc.id)
		checkBroken(t, tc.id+": Load", err, tc.want)
		if _, err := s.Rename(tc.id, "fixed"); err == nil {
			t.Errorf("%s: rename of the broken chat succeeded", tc.id)
		}
		if after, _ := os.ReadFile(path); string(after) != text {
			t.Errorf("%s: the file was rewritten:\n%s", tc.id, after)
		}
	}
}
