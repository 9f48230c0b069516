// Package proto holds the types that cross the server's socket: the
// `_acpmux/*` method and notification names, their params and results, the
// JSON-RPC error codes and limits, where a home's socket is, and what the
// server reports: a chat as `--json` prints it and a refusal of its folders,
// its state and terminal (the emulator's modes too), its transcript and the
// stream of an observed chat (one entry shape, Entry, from the agent's
// update to every client, the ACP door's included), permission requests,
// the review's sections and diffs, and the reports of an export and an
// import. The server speaks it on one side; its clients (the TUI, the
// commands, `attach`, `prompt`) import it on the other, and never the
// supervisor (mux) nor the server itself.
//
// It is a leaf: of this repository it imports only the line codec
// (internal/rpcline), and it knows nothing of processes, ptys, git or ACP
// connections. The packages that make its types (sessions, screen,
// internal/review, the mux) import it and make them as they are, and no
// package names them under other names.
package proto
