package mux

// An ACP chat's door clients, and its single files (acp/agent serves and
// forwards the agent's client requests, and links the files).

import (
	"slices"

	"github.com/acpmux/acpmux-tui/acp/agent"
)

// OnForward sets f to take an ACP chat's client requests; nil stops.
func (m *Mux) OnForward(id string, f agent.Forwarder) error {
	c, err := m.acpChat(id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.forward = f
	c.mu.Unlock()
	return nil
}

// linksDueLocked is the single files of process p that the conversation
// has not been given a link for: all of them while that is unknown.
func (c *acpChat) linksDueLocked(p *acpProcess) []string {
	if !c.linkedKnown {
		return append([]string(nil), p.files...)
	}
	var due []string
	for _, f := range p.files {
		if !slices.Contains(c.linked, f) {
			due = append(due, f)
		}
	}
	return due
}
