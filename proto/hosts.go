package proto

// HostStatus is one host as the TUI's sidebar heads its chats: the local
// host, or a configured [host.NAME], and why it does not answer.
type HostStatus struct {
	Name string
	// Remote is set for a configured host (not the local one).
	Remote bool
	// Down is why the host does not answer now, on one line; "" while it
	// does.
	Down string
}
