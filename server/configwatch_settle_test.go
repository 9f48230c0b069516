package server

import (
	"testing"
	"time"
)

// TestConfigReadOnceTheFileIsQuiet: the file is read configSettle after
// its last event, so an editor that truncates and then writes a moment
// later is read whole; a file written on and on is still read
// configSettleMost after the first event; after a read, the next event
// waits afresh.
func TestConfigReadOnceTheFileIsQuiet(t *testing.T) {
	var s settling
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	if got := s.heard(at(0)); got != configSettle {
		t.Fatalf("the first event waits %v, want %v", got, configSettle)
	}
	// The write, 90 ms after the truncate: the read moves after it.
	if got := s.heard(at(90 * time.Millisecond)); got != configSettle {
		t.Fatalf("a second event waits %v, want %v from it", got, configSettle)
	}
	// Events on and on: the wait never passes the first event's bound.
	if got := s.heard(at(configSettleMost - 30*time.Millisecond)); got != 30*time.Millisecond {
		t.Fatalf("near the bound the wait is %v, want 30ms", got)
	}
	if got := s.heard(at(configSettleMost + time.Second)); got > 0 {
		t.Fatalf("past the bound the wait is %v, want none", got)
	}
	s.read()
	if got := s.heard(at(5 * time.Second)); got != configSettle {
		t.Fatalf("after a read the next event waits %v, want %v", got, configSettle)
	}
}
