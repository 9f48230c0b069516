// Package house holds the repository's import rules as one table, in its
// test: which package may not depend on which (the arrows of
// ARCHITECTURE.md). It has no code; `go test ./internal/house` checks the
// rules against `go list -deps`.
package house
