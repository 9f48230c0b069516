package agent

import "context"

// A caller that runs a prompt on a goroutine it would rather have back
// while the prompt waits (the server's reader of an ACP client's lines,
// lent to a turn) hears through the prompt's context when that moment
// comes: once the prompt is on its way to the agent, or before anything on
// the way blocks (the agent's session not yet ready, the chat's capsule
// not yet told). Until then the prompt only runs code, and the caller has
// nothing to do: a timer armed at the start would wake a thread of the
// runtime on every turn, before the agent has its prompt.

type waitingKey struct{}

// WithWaiting returns ctx carrying f, which Waiting calls.
func WithWaiting(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, waitingKey{}, f)
}

// Waiting tells ctx's caller, if it asked (WithWaiting), that the call it
// runs is about to wait. It may be called more than once.
func Waiting(ctx context.Context) {
	if f, ok := ctx.Value(waitingKey{}).(func()); ok {
		f()
	}
}

// Await waits for ch to close, telling ctx's caller first when it is not
// closed yet; it returns ctx's error when ctx ends first.
func Await(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	default:
	}
	Waiting(ctx)
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
