package mux

import (
	"context"
	"os"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// ReadTextFile serves a read only inside the chat's folder and its
// additional folders, after resolving symlinks.
func (a *acpClient) ReadTextFile(_ context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	real, err := a.proc.roots.resolve(req.Path, false)
	if err != nil {
		a.chat.m.opt.Logger.Warn("refused fs/read_text_file", "chat", a.chat.id, "path", req.Path, "err", err)
		return acp.ReadTextFileResponse{}, acp.NewInvalidParams(map[string]any{"path": req.Path, "error": err.Error()})
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return acp.ReadTextFileResponse{}, acp.NewInternalError(map[string]any{"path": req.Path, "error": err.Error()})
	}
	text := string(data)
	if req.Line != nil || req.Limit != nil {
		text = sliceLines(text, req.Line, req.Limit)
	}
	return acp.ReadTextFileResponse{Content: text}, nil
}

// sliceLines keeps limit lines from line (1-based).
func sliceLines(text string, line, limit *int) string {
	lines := strings.SplitAfter(text, "\n")
	from := 0
	if line != nil && *line > 1 {
		from = min(*line-1, len(lines))
	}
	to := len(lines)
	if limit != nil && *limit >= 0 {
		to = min(from+*limit, len(lines))
	}
	return strings.Join(lines[from:to], "")
}

// WriteTextFile serves a write only inside the chat's roots.
func (a *acpClient) WriteTextFile(_ context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	real, err := a.proc.roots.resolve(req.Path, true)
	if err != nil {
		a.chat.m.opt.Logger.Warn("refused fs/write_text_file", "chat", a.chat.id, "path", req.Path, "err", err)
		return acp.WriteTextFileResponse{}, acp.NewInvalidParams(map[string]any{"path": req.Path, "error": err.Error()})
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(real); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.WriteFile(real, []byte(req.Content), mode); err != nil {
		return acp.WriteTextFileResponse{}, acp.NewInternalError(map[string]any{"path": req.Path, "error": err.Error()})
	}
	return acp.WriteTextFileResponse{}, nil
}

