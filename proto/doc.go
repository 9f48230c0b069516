// Package proto holds the types that cross the server's socket: the
// `_acpmux/*` method and notification names, their params and results, the
// JSON-RPC error codes and limits, where a home's socket is, and the chat
// state, terminal, transcript and permission types the server reports. The
// server speaks it on one side; its clients (the TUI, the commands, `attach`,
// `prompt`) import it on the other, and never the supervisor (mux) nor the
// server itself. It knows nothing of processes, ptys or ACP connections.
package proto
