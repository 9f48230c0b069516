package proto

// MethodAdopt hands the server the client's standard input and output: a
// connection's first message, exactly AdoptLine, with the two descriptors
// (SCM_RIGHTS), standard input first. The server answers AdoptedLine on
// the socket, then reads the connection's lines from the one and writes
// its answers to the other; the socket stays open until the connection
// ends, and then closes. A server that does not know it answers Method
// not found with the same id, and the client goes on on the socket.
// `acpmux-tui proxy` sends it, so its process does not copy every line.
const MethodAdopt = "_acpmux/adopt"

// AdoptLine and AdoptedLine are the hand-over's call and its answer, each
// one line.
const (
	AdoptLine   = `{"jsonrpc":"2.0","id":"adopt","method":"` + MethodAdopt + `"}` + "\n"
	AdoptedLine = `{"jsonrpc":"2.0","id":"adopt","result":{}}` + "\n"
)
