package client

import (
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Files lists the files a prompt of chat id may mention with @, best match
// for query first, at most limit (proto.MethodFiles).
func (r *Remote) Files(id, query string, limit int) (proto.FilesResult, error) {
	var res proto.FilesResult
	err := r.call(proto.MethodFiles, proto.FilesParams{ID: id, Query: query, Limit: limit}, &res)
	return res, err
}

// SetFiles replaces the chat's single files with files (the server's
// shared validator passes the whole list or refuses it, changing nothing)
// and returns the chat as stored then; a running chat takes them at the
// end of its turn.
func (r *Remote) SetFiles(id string, files []string) (*sessions.Meta, error) {
	if files == nil {
		files = []string{}
	}
	var chat proto.ChatJSON
	if err := r.call(proto.MethodSetFiles, proto.SetFilesParams{ID: id, AdditionalFiles: &files}, &chat); err != nil {
		return nil, err
	}
	return metaOf(chat), nil
}
