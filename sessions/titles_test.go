package sessions

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAgentTitle(t *testing.T) {
	long := strings.Repeat("é", MaxTitleRunes+10)
	for _, c := range []struct{ in, want string }{
		{"Parser report", "Parser report"},
		{"  padded\t", "padded"},
		{"two\nlines", "two lines"},
		{"\x1b]0;pwned\x07Report \u202egpj.exe\x1b[2J", "Report gpj.exe"},
		{"a\u2066b\u2069c\u200fd", "abcd"},
		{"bell\x07 and \u009b31m C1", "bell and  C1"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{long, strings.Repeat("é", MaxTitleRunes-1) + "…"},
		{"", ""},
	} {
		got := AgentTitle(c.in)
		if got != c.want {
			t.Errorf("AgentTitle(%q) = %q, want %q", c.in, got, c.want)
		}
		if p := titleProblem(got); p != "" {
			t.Errorf("AgentTitle(%q) = %q, which a chat file may not hold: %s", c.in, got, p)
		}
		if AgentTitle(got) != got {
			t.Errorf("AgentTitle is not idempotent on %q", got)
		}
		if utf8.RuneCountInString(got) > MaxTitleRunes {
			t.Errorf("AgentTitle(%q) is %d characters", c.in, utf8.RuneCountInString(got))
		}
	}
}

// TestStoredTitleIsChecked: a hand-edited title with a control or a
// bidirectional character, or too long, makes the file broken, as a name
// does.
func TestStoredTitleIsChecked(t *testing.T) {
	head := "version = 1\nid = \"abc\"\nharness = \"shell\"\ncwd = \"/\"\n"
	for _, c := range []struct{ title, problem string }{
		{`"Parser report"`, ""},
		{`"a\u001bb"`, "control character"},
		{`"a\u202eb"`, "bidirectional"},
		{`"` + strings.Repeat("x", MaxTitleRunes+1) + `"`, "at most"},
	} {
		m, err := ParseMeta([]byte(head + "title = " + c.title + "\n"))
		switch {
		case c.problem == "" && err != nil:
			t.Errorf("title %s: %v", c.title, err)
		case c.problem == "" && m.Title != "Parser report":
			t.Errorf("title %s read as %q", c.title, m.Title)
		case c.problem != "" && (err == nil || !strings.Contains(err.Error(), c.problem)):
			t.Errorf("title %s: error %v, want one saying %q", c.title, err, c.problem)
		}
	}
}

func TestLabel(t *testing.T) {
	for _, c := range []struct {
		m    Meta
		want string
	}{
		{Meta{ID: "k3", Name: "app k3", Cwd: "/src/app", Harness: "fake", Title: "Parser"}, "Parser"},
		{Meta{ID: "k3", Name: "fake k3", Cwd: "/h/homes/k3", Harness: "fake", Title: "Parser"}, "Parser"},
		{Meta{ID: "k3", Name: "", Cwd: "/src/app", Harness: "fake", Title: "Parser"}, "Parser"},
		{Meta{ID: "k3", Name: "mine", Cwd: "/src/app", Harness: "fake", Title: "Parser"}, "mine"},
		{Meta{ID: "k3", Name: "app k3", Cwd: "/src/app", Harness: "fake"}, "app k3"},
	} {
		if got := c.m.Label(); got != c.want {
			t.Errorf("%+v: Label %q, want %q", c.m, got, c.want)
		}
	}
}

// TestSetTitleWritesOnlyAChange: the title is stored cleaned, the file
// written only when it changes, and a later title replaces it.
func TestSetTitleWritesOnlyAChange(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		in, want string
		changed  bool
	}{
		{"Parser report", "Parser report", true},
		{"Parser report", "Parser report", false},
		{" Parser\x1b[31m report ", "Parser report", false},
		{"Next \u202ething", "Next thing", true},
		{"", "", true},
	} {
		changed, err := s.SetTitle(m.ID, c.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if changed != c.changed || got.Title != c.want {
			t.Errorf("%d: SetTitle(%q): changed %v title %q, want %v %q", i, c.in, changed, got.Title, c.changed, c.want)
		}
		if got.Name != m.Name {
			t.Errorf("%d: the name became %q", i, got.Name)
		}
	}
}
