//go:build !race

package mux

// raceEnabled is true when the tests run under the race detector.
const raceEnabled = false
