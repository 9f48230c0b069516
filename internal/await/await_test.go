package await

import (
	"errors"
	"testing"
)

// TestResult: the first end told is the result, whether it comes before
// start returns or later from another goroutine; a second is dropped.
func TestResult(t *testing.T) {
	n, err := Result(func(done func(int, error)) { done(1, nil); done(2, errors.New("late")) })
	if n != 1 || err != nil {
		t.Fatalf("told at once: %d, %v; want 1, nil", n, err)
	}
	wantErr := errors.New("later")
	n, err = Result(func(done func(int, error)) {
		started := make(chan struct{})
		go func() {
			<-started // the end comes from another goroutine, once start is done
			done(3, wantErr)
		}()
		close(started)
	})
	if n != 3 || err != wantErr {
		t.Fatalf("told later: %d, %v; want 3, %v", n, err, wantErr)
	}
}
