package proto

// MethodListDirectory ({path} → {path, entries, truncated}) lists one
// folder of the server's host for the folder picker, which browses the
// chat's host: path is absolute; the answer names the folder in canonical
// form and its entries sorted by name, each with whether it is a folder
// (a symlink to one counts), at most MaxListEntries of them (truncated
// says more were left out). The agent home is neither listed nor shown.
const MethodListDirectory = "_acpmux/listDirectory"

// MaxListEntries bounds the entries of one MethodListDirectory answer.
const MaxListEntries = 2000

// ListDirectoryParams are the params of MethodListDirectory.
type ListDirectoryParams struct {
	Path string `json:"path"`
}

// DirEntry is one entry of a listed folder.
type DirEntry struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir"`
}

// ListDirectoryResult is the answer to MethodListDirectory; Entries is
// always an array.
type ListDirectoryResult struct {
	Path      string     `json:"path"`
	Entries   []DirEntry `json:"entries"`
	Truncated bool       `json:"truncated"`
}
