package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/internal/mention"
)

// This file lists the files an ACP chat's prompt may mention with @: the
// chat's own single files, then the files under its folder and its
// additional folders (internal/mention: the walk and the ranking the
// server's _acpmux/files shares). The listing runs in a tea.Cmd, and its
// result is kept a short while per chat so each @ does not walk again.

// mentionFilesMsg carries the files listed for chat id.
type mentionFilesMsg struct {
	id    string
	files []mention.File
	// note says what the list leaves out (the bound was reached, the
	// chat's host is not this machine), "" when nothing.
	note string
	at   time.Time
}

// mentionListing is one chat's listing as the composer keeps it.
type mentionListing struct {
	files []mention.File
	note  string
	at    time.Time
}

// listMentionFiles lists chat id's files off the event loop: the chat as
// the server stores it, then a walk of its folders. A chat of another host
// has its files there: only its single files are offered, and the note
// says so.
func listMentionFiles(lists ChatLists, id string, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		msg := mentionFilesMsg{id: id, at: now()}
		e, err := lists.Chat(id)
		if err != nil || e.Meta == nil {
			msg.note = "the chat's folders could not be read"
			return msg
		}
		m := e.Meta
		if h := hostOf(id); h != "" {
			msg.files, _ = mention.List("", nil, m.AdditionalFiles)
			msg.note = "only the chat's own files: the files of host " + mention.Text(h) + " are not listed here"
			return msg
		}
		var full bool
		msg.files, full = mention.List(m.Cwd, m.AdditionalDirectories, m.AdditionalFiles)
		if full {
			msg.note = fmt.Sprintf("the first %d files only", mention.MaxFiles)
		}
		return msg
	}
}
