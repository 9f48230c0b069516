package tui

import (
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the sidebar's headers of hosts: with other hosts
// configured, each host's chats come under a line with its name (the
// local host first, then the hosts in order), and a host that does not
// answer says why on it. Without other hosts none of this runs.

// SetHosts sets the hosts whose chats the sidebar heads (nil: no header).
func (s *Sidebar) SetHosts(hosts []proto.HostStatus) {
	s.hosts = hosts
	s.applyFilter("")
}

// buildLines lays out the rows under their hosts' headers, the local
// chats first, then each host's.
func (s *Sidebar) buildLines() {
	s.lines, s.lineOfRow = s.lines[:0], s.lineOfRow[:0]
	if s.hosts == nil {
		return
	}
	s.lineOfRow = append(s.lineOfRow, make([]int, len(s.rows))...)
	placed := make([]bool, len(s.rows))
	for k, h := range s.hosts {
		s.lines = append(s.lines, -1-k)
		name := ""
		if h.Remote {
			name = h.Name
		}
		for j, i := range s.rows {
			if !placed[j] && hostOf(s.all[i].entry.ID) == name {
				placed[j] = true
				s.lineOfRow[j] = len(s.lines)
				s.lines = append(s.lines, j)
			}
		}
	}
	for j := range s.rows { // a chat of a host no longer configured
		if !placed[j] {
			s.lineOfRow[j] = len(s.lines)
			s.lines = append(s.lines, j)
		}
	}
}

// lineCount is the number of lines the list has, headers included.
func (s *Sidebar) lineCount() int {
	if s.hosts == nil {
		return len(s.rows)
	}
	return len(s.lines)
}

// lineOf is the line of row j.
func (s *Sidebar) lineOf(j int) int {
	if j < 0 || j >= len(s.lineOfRow) {
		return 0
	}
	return s.lineOfRow[j]
}

// topOf is the first line to keep on screen for row j: its host's header
// when the row is the host's first.
func (s *Sidebar) topOf(j int) int {
	l := s.lineOf(j)
	if l > 0 && s.lines[l-1] < 0 {
		return l - 1
	}
	return l
}

// rowOfLine is the row at line i, if that line is a row.
func (s *Sidebar) rowOfLine(i int, ok bool) (int, bool) {
	if !ok || i < 0 || i >= len(s.lines) || s.lines[i] < 0 {
		return 0, false
	}
	return s.lines[i], true
}

// drawLine draws line v of the list: row v, or header -1-v.
func (s *Sidebar) drawLine(v int) string {
	if v >= 0 {
		return s.row(s.all[s.rows[v]], v == s.cur)
	}
	h := s.hosts[-1-v]
	st := s.c.Styles
	if h.Down != "" {
		return fitLine(st.Warn.Render(truncPlain("▾ "+h.Name+" · down: "+plaintext.Line(h.Down), s.w)), s.w)
	}
	return fitLine(st.Accent.Render(truncPlain("▾ "+h.Name, s.w)), s.w)
}
