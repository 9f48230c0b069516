// Package agent is the client side of ACP: our end of the connection to
// each agent a chat runs. It holds everything that touches the protocol's
// bytes and messages on that side:
//
//   - Conn: the SDK's connection behind the wire guard (whole JSON lines
//     within 8 MiB, session updates applied in order without the SDK's
//     queue, a request over the limit answered and dropped), our
//     initialize, and what the guard and the writes saw;
//   - Client: what the SDK calls for the agent's requests, handing updates
//     and permission requests to the Chat and serving fs/* inside the
//     chat's Roots (or forwarding them to a door client that serves them);
//   - Roots: the folders and single files an agent may touch, opened through
//     os.Root so that no symlink or swapped folder leads outside;
//   - Transcript: the conversation as the agent streamed it;
//   - the words for what went wrong (BadMessage, StderrLog, Sanitize...).
//
// The process that runs the agent, its restarts and the chat's status are
// the supervisor's (package mux), which implements Chat; the door, where
// ACP clients reach the server, is package acp.
package agent
