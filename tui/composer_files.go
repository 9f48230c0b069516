package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/internal/mention"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file lists the files an ACP chat's prompt may mention with @: the
// chat's own single files, then the files under its folder and its
// additional folders (internal/mention: the walk and the ranking the
// server's _acpmux/files shares). The listing runs in a tea.Cmd, and its
// result is kept a short while per chat so each @ does not walk again. A
// chat of another host has its files there: its host's server lists them
// (_acpmux/files), the best matches of the query typed, and again when the
// query asks for files that listing may have left out.

// mentionFilesMsg carries the files listed for chat id.
type mentionFilesMsg struct {
	id    string
	files []mention.File
	// query is what the listing was asked for; partial, that it holds only
	// the best matches of query (another host's, cut at its limit), else
	// every match of it.
	query   string
	partial bool
	// note says what the list leaves out (the bound was reached, the
	// chat's host is not this machine), "" when nothing.
	note string
	at   time.Time
}

// mentionListing is one chat's listing as the composer keeps it.
type mentionListing struct {
	files   []mention.File
	note    string
	at      time.Time
	query   string
	partial bool
}

// serves reports whether the listing holds every file query matches: a
// whole listing does, and one of the matches of a query does for a query
// that extends it (a fuzzy match of the longer is one of the shorter); a
// partial one only for its own query.
func (l mentionListing) serves(query string) bool {
	if l.partial {
		return query == l.query
	}
	return strings.HasPrefix(query, l.query)
}

// hostFiles lists a chat's files on its host (the Router).
type hostFiles interface {
	Files(id, query string, limit int) (proto.FilesResult, error)
}

// listMentionFiles lists chat id's files off the event loop: the chat as
// the server stores it, then a walk of its folders; for a chat of another
// host, the best matches of query that its host's server lists.
func listMentionFiles(lists ChatLists, id, query string, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		msg := mentionFilesMsg{id: id, at: now()}
		if h := hostOf(id); h != "" {
			return listHostFiles(lists, id, h, query, msg)
		}
		e, err := lists.Chat(id)
		if err != nil || e.Meta == nil {
			msg.note = "the chat's folders could not be read"
			return msg
		}
		m := e.Meta
		var full bool
		msg.files, full = mention.List(m.Cwd, m.AdditionalDirectories, m.AdditionalFiles)
		if full {
			msg.note = fmt.Sprintf("the first %d files only", mention.MaxFiles)
		}
		return msg
	}
}

// listHostFiles asks chat id's host h for the best matches of query. Each
// file is taken as a path of that host, so only an absolute one; what
// cannot be listed is said.
func listHostFiles(lists ChatLists, id, h, query string, msg mentionFilesMsg) mentionFilesMsg {
	msg.query = query
	hf, ok := lists.(hostFiles)
	if !ok {
		msg.note = "the files of host " + mention.Text(h) + " are not listed here"
		return msg
	}
	res, err := hf.Files(id, query, proto.FilesMost)
	if err != nil {
		// Asked again for the next query: the link may be back.
		msg.partial = true
		msg.note = "the files of host " + mention.Text(h) + " could not be listed: " + mention.Text(err.Error())
		return msg
	}
	for _, f := range res.Files {
		if !filepath.IsAbs(f.Path) {
			continue
		}
		if f.Own {
			msg.files = append(msg.files, mention.OwnFile(f.Path))
			continue
		}
		label := mention.Text(f.Name)
		msg.files = append(msg.files, mention.File{Path: f.Path, Label: label, Match: label})
	}
	msg.partial, msg.note = res.Truncated, mention.Text(res.Note)
	return msg
}
