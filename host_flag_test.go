package main

import (
	"strings"
	"testing"
)

// TestHostFlagParses: --host goes anywhere among a command's flags and
// arguments, as every flag does; none, or an empty name, is refused
// before anything is dialed, and -- ends the flags.
func TestHostFlagParses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		host string
		pos  string
		bad  string
	}{
		{[]string{"--json"}, "", "", ""},
		{[]string{"--host", "box", "--json"}, "box", "", ""},
		{[]string{"abc", "--host=box"}, "box", "abc", ""},
		{[]string{"-host", "box", "abc"}, "box", "abc", ""},
		{[]string{"abc", "--", "--host", "box"}, "", "abc,--host,box", ""},
		{[]string{"--host"}, "", "", "flag --host needs an argument"},
		{[]string{"--host="}, "", "", "empty host name"},
	} {
		fs := newFlags(&app{}, "ls")
		fs.Bool("json", false, "")
		host := hostFlag(fs)
		pos, err := parseInterleaved(fs, tc.args)
		switch {
		case tc.bad != "":
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: err = %v, want %q", tc.args, err, tc.bad)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case *host != tc.host || strings.Join(pos, ",") != tc.pos:
			t.Errorf("%q: host %q, positionals %q; want %q, %q", tc.args, *host, pos, tc.host, tc.pos)
		}
	}
}
