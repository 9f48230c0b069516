package server

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/internal/mention"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file answers _acpmux/files: the files a prompt of a chat may
// mention with @, for the web page's composer and any client that does
// not walk the chat's folders itself. The listing and the ranking are
// internal/mention's, the TUI's own; a listing is kept a short while
// (Server.mentions), so each key typed after an @ ranks it again without
// walking the folders again.

// maxFilesQuery bounds the query of one call: a file's name is at most a
// few hundred bytes, and the matcher's work grows with the query.
const maxFilesQuery = 1024

// mentionFiles answers MethodFiles. A web caller (c.web) is held to the
// web rules: the chat's own folder is listed (a web caller may name an
// existing chat's folder), its added folders and single files only when
// inside the web roots; what is left out is said in the note. Whatever
// no chat may reach (the agent home, /proc, /sys) is never listed.
func (s *Server) mentionFiles(c *conn, p proto.FilesParams) (proto.FilesResult, *Error) {
	res := proto.FilesResult{Files: []proto.FileMatch{}}
	if err := needID(p.ID); err != nil {
		return res, err
	}
	if len(p.Query) > maxFilesQuery {
		return res, errorf(proto.CodeInvalidParams, "Invalid params: query is %d bytes, at most %d", len(p.Query), maxFilesQuery)
	}
	if p.Limit < 0 {
		return res, errorf(proto.CodeInvalidParams, "Invalid params: limit %d is negative", p.Limit)
	}
	m, err := s.opt.Store.Load(p.ID)
	if err != nil {
		if errors.Is(err, sessions.ErrNotFound) {
			return res, errorf(proto.CodeInvalidParams, "Invalid params: no chat %q", clipText(p.ID))
		}
		return res, failure(err)
	}
	dirs, own := m.AdditionalDirectories, m.AdditionalFiles
	if c != nil && c.web.Load() {
		var left int
		dirs, own, left = s.webMentionRoots(dirs, own)
		if left > 0 {
			res.Note = fmt.Sprintf("%d of the chat's folders and files are outside the web roots: not listed", left)
		}
	}
	home := sessions.CanonicalOr(s.opt.Store.Home())
	// The key names what was walked: a web caller's listing of a chat is
	// not a local client's.
	key := p.ID + "\x00" + m.Cwd + "\x00" + strings.Join(dirs, "\x00") + "\x00\x00" + strings.Join(own, "\x00")
	files, full := s.mentions.Get(key, time.Now(), func() ([]mention.File, bool) {
		files, full := mention.List(m.Cwd, dirs, own)
		kept := files[:0]
		for _, f := range files {
			if sessions.OffLimits(home, m.Cwd, f.Path) == "" {
				kept = append(kept, f)
			}
		}
		return kept, full
	})
	limit := p.Limit
	if limit == 0 {
		limit = proto.FilesDefault
	}
	limit = min(limit, proto.FilesMost)
	ranked, matched := mention.Rank(files, p.Query, limit)
	for _, f := range ranked {
		uri := url.URL{Scheme: "file", Path: f.Path}
		res.Files = append(res.Files, proto.FileMatch{Path: f.Path, URI: uri.String(), Name: f.Label, Own: f.Own})
	}
	res.Truncated = full || matched > len(ranked)
	if full {
		res.Note = strings.TrimPrefix(res.Note+"; ", "; ") + fmt.Sprintf("the first %d files of the folders only", mention.MaxFiles)
	}
	return res, nil
}

// webMentionRoots keeps of a chat's added folders and single files those
// a web caller may name (inside the web roots), and counts the others.
func (s *Server) webMentionRoots(dirs, own []string) (keptDirs, keptOwn []string, left int) {
	roots := s.live.Load().webRoots
	for _, d := range dirs {
		if insideRoots(roots, d) {
			keptDirs = append(keptDirs, d)
		} else {
			left++
		}
	}
	for _, f := range own {
		if insideRoots(roots, f) {
			keptOwn = append(keptOwn, f)
		} else {
			left++
		}
	}
	return keptDirs, keptOwn, left
}
