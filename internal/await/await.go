// Package await waits for a call that tells its end through a callback:
// the Then forms of a prompt (agent.Conn.PromptThen, mux.Mux.PromptThen,
// the server's runTurnThen, acp.Backend.PromptThen) return once the
// prompt is on its way, and the synchronous forms wait on them with this.
package await

// Result calls start with a callback and returns what the callback was
// first given, once it has been called: before start returns, or after,
// on any goroutine. A second call of the callback is dropped.
func Result[A, B any](start func(done func(A, B))) (A, B) {
	type end struct {
		a A
		b B
	}
	ended := make(chan end, 1)
	start(func(a A, b B) {
		select {
		case ended <- end{a, b}:
		default:
		}
	})
	e := <-ended
	return e.a, e.b
}
