package agent

import (
	"mime"
	"net/url"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// This file gives an ACP agent a chat's single files: one resource_link
// content block per file at the head of the conversation's first prompt,
// and for a file added later, at the head of the first prompt after the
// change is taken. Every agent must accept resource_link in a prompt (ACP's
// baseline prompt capabilities), and fs/read_text_file and
// fs/write_text_file serve exactly those files (roots_files.go).

// FileLink is the resource_link block that names one shared file: its
// file:// URI (percent-encoded where the path needs it), its base name,
// and its MIME type where the extension tells it.
func FileLink(path string) acp.ContentBlock {
	b := acp.ResourceLinkBlock(filepath.Base(path), (&url.URL{Scheme: "file", Path: path}).String())
	if mt := fileMimeType(path); mt != "" {
		b.ResourceLink.MimeType = &mt
	}
	return b
}

// knownMimeTypes are the types of the files a coding agent is most often
// given, by extension: fixed here so that a link says the same on every
// machine (the system's table calls a .ts file an MPEG stream).
var knownMimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".log": "text/plain",
	".go": "text/x-go", ".mod": "text/plain", ".py": "text/x-python", ".rs": "text/x-rust",
	".ts": "text/x-typescript", ".tsx": "text/x-typescript", ".js": "text/javascript", ".mjs": "text/javascript",
	".jsx": "text/javascript", ".c": "text/x-c", ".h": "text/x-c", ".cc": "text/x-c++", ".cpp": "text/x-c++",
	".hpp": "text/x-c++", ".java": "text/x-java", ".kt": "text/x-kotlin", ".rb": "text/x-ruby",
	".sh": "text/x-shellscript", ".bash": "text/x-shellscript", ".zsh": "text/x-shellscript",
	".json": "application/json", ".toml": "application/toml", ".yaml": "application/yaml", ".yml": "application/yaml",
	".xml": "application/xml", ".html": "text/html", ".htm": "text/html", ".css": "text/css", ".csv": "text/csv",
	".sql": "application/sql", ".diff": "text/x-diff", ".patch": "text/x-diff", ".proto": "text/plain",
	".pdf": "application/pdf", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".svg": "image/svg+xml", ".webp": "image/webp",
}

// fileMimeType is a file's MIME type by its extension (no parameters), or
// "" when unknown: the block then has none.
func fileMimeType(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return ""
	}
	if mt, ok := knownMimeTypes[ext]; ok {
		return mt
	}
	mt, _, _ := strings.Cut(mime.TypeByExtension(ext), ";")
	return strings.TrimSpace(mt)
}
