package lazyre

import (
	"regexp"
	"testing"
)

func TestNewCompilesOnceAndMatches(t *testing.T) {
	re := New(`^a+b$`)
	first := re()
	if !first.MatchString("aaab") || first.MatchString("ab!") {
		t.Fatalf("lazy regexp %q matches differently from the expression", first)
	}
	if re() != first {
		t.Fatal("a second call compiled the expression again")
	}
	if got, want := first.String(), regexp.MustCompile(`^a+b$`).String(); got != want {
		t.Fatalf("compiled %q, want %q", got, want)
	}
}

func TestNewPanicsOnFirstUseOfABadExpression(t *testing.T) {
	re := New(`(`) // not compiled yet: no panic here
	defer func() {
		if recover() == nil {
			t.Fatal("a bad expression did not panic on first use")
		}
	}()
	re()
}
