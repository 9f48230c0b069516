package main

import (
	"strings"
	"testing"
)

// TestLastRowAsPlainRows: lastRow finds the row plainRows's last non-blank
// one is, styled or not.
func TestLastRowAsPlainRows(t *testing.T) {
	pad := strings.Repeat(" ", 20)
	for _, text := range []string{
		"",
		pad,
		"abc" + pad + "\n" + pad + "\n" + pad,
		"one\n\x1b[31mtwo\x1b[m" + pad + "\n\x1b[41m" + pad + "\x1b[m\n" + pad,
		"one\ntwo  \nthree",
		"\n\n",
	} {
		want := ""
		rows := plainRows(text)
		for i := len(rows) - 1; i >= 0; i-- {
			if rows[i] != "" {
				want = rows[i]
				break
			}
		}
		if got := lastRow(text); got != want {
			t.Errorf("lastRow(%q) = %q, want %q", text, got, want)
		}
	}
}
