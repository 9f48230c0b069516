package proto

import "bytes"

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

// An ACP client's stdio is handed over the same way by `acpmux-tui acp`
// (the door): MethodAdopt with AdoptParams naming the door, and three
// descriptors, standard input, standard output, and a file the server
// keeps the client's open requests in (DoorTook). The server then
// serves the connection as the door, initialize first, and the harness
// named the one new chats get. When the connection ends it writes
// AdoptEndedLine on the socket before it closes it: a door that sees the
// socket close without it knows the server died, and answers the open
// requests itself.
type AdoptParams struct {
	Door *AdoptDoor `json:"door,omitempty"`
}

// AdoptDoor is the door's part of AdoptParams: the harness of
// `acp --harness` ("" for the default).
type AdoptDoor struct {
	Harness string `json:"harness,omitempty"`
}

// AdoptEndedLine is what the server writes on a door's socket as the
// connection ends by itself.
const AdoptEndedLine = `{"jsonrpc":"2.0","method":"_acpmux/adoptEnded"}` + "\n"

// The door's open requests, in the file handed over with its stdio: a
// line DoorTook+ID as the server takes a request, DoorAnswered+ID once its
// answer is written (ID as sent, JSON); the file is emptied whenever
// nothing is open. The lines end at the file's end or at its first NUL
// (DoorLog): a server may keep the file longer than its lines.
const (
	DoorTook     = '+'
	DoorAnswered = '-'
)

// DoorLog is the lines of the file of open requests whose content is data.
func DoorLog(data []byte) []byte {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return data[:i]
	}
	return data
}
