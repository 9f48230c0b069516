package agent

import (
	"context"
	"errors"
	"testing"
)

// TestAwaitTellsOnlyWhenItWaits: a closed channel is passed without a
// word; an open one is told of first, and a context that ends first ends
// the wait with its error.
func TestAwaitTellsOnlyWhenItWaits(t *testing.T) {
	told := 0
	ctx, cancel := context.WithCancel(WithWaiting(context.Background(), func() { told++ }))
	closed := make(chan struct{})
	close(closed)
	if err := Await(ctx, closed); err != nil || told != 0 {
		t.Fatalf("a closed channel: err %v, told %d times, want nil and 0", err, told)
	}
	cancel()
	if err := Await(ctx, make(chan struct{})); !errors.Is(err, context.Canceled) || told != 1 {
		t.Fatalf("an open channel: err %v, told %d times, want context.Canceled and 1", err, told)
	}
	Waiting(context.Background()) // no one asked: nothing to call
}
