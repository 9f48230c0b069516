//go:build race

package mux

// raceEnabled is true when the tests run under the race detector, which
// slows the mux several times over: tests scale their work down with it,
// never their deadlines.
const raceEnabled = true
