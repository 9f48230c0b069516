// Package gitenv gives tests a git that reads no configuration from
// outside the test and commits as a fixed identity, whoever runs them.
package gitenv

import (
	"strings"
	"testing"
)

// Vars are the environment of that git: no system or global config, and
// an author and committer of its own.
var Vars = []string{
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
	"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid",
}

// Set puts Vars in the test's environment (t.Setenv), for the git the
// test runs and for every process it starts.
func Set(t testing.TB) {
	t.Helper()
	for _, kv := range Vars {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}
