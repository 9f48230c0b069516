package proto

// MethodFiles (FilesParams → FilesResult) lists the files a prompt of
// chat id may mention with @, best match for query first, as the TUI's
// composer offers them: the chat's own single files, then the files under
// its folder and its added folders (a bounded walk: 20,000 files, 12
// folders deep, no hidden files or folders, no node_modules and the like,
// no symlink out of the folders), ranked by the same fuzzy matcher. A web
// caller gets the chat's folder and those of its folders and files inside
// the web roots. An unknown chat is -32602.
const MethodFiles = "_acpmux/files"

// Bounds of a MethodFiles answer: Limit 0 asks for FilesDefault files,
// and more than FilesMost is FilesMost.
const (
	FilesDefault = 50
	FilesMost    = 200
)

// FilesParams are the params of MethodFiles.
type FilesParams struct {
	ID    string `json:"id"`
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// FileMatch is one file a MethodFiles answer offers: its absolute path,
// its file:// URI (what a prompt's Link carries), and its name as a list
// shows it and a chip names it (the path relative to the chat's folder,
// or from an added folder's name; a single file's absolute path), cleaned
// to one line of text. Own marks the chat's own single files.
type FileMatch struct {
	Path string `json:"path"`
	URI  string `json:"uri"`
	Name string `json:"name"`
	Own  bool   `json:"own,omitempty"`
}

// FilesResult is the answer to MethodFiles. Files is always an array;
// Truncated says files were left out (more matched than the limit, or
// the walk stopped at its bound); Note says what the listing leaves out
// and why, "" when nothing.
type FilesResult struct {
	Files     []FileMatch `json:"files"`
	Truncated bool        `json:"truncated"`
	Note      string      `json:"note,omitempty"`
}
