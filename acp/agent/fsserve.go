package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/acpmux/acpmux-tui/config"
	acp "github.com/coder/acp-go-sdk"
)

// openReadFlags open a file to read: O_NONBLOCK so a FIFO (or a device that
// waits) never blocks the open and pins an OS thread, O_NOCTTY so a
// terminal never becomes ours. Reading a regular file ignores O_NONBLOCK.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// ReadTextFile serves fs/read_text_file, only through the chat's folders
// (see roots), only for regular files, and at most the configured size
// (acp.max_file_bytes) whole; a line/limit window of a bigger file is
// streamed, and only the window is bounded.
//
// When the door client that prompted the turn serves files itself, a read
// inside the roots goes to it instead (forward.go).
func (a *Client) ReadTextFile(ctx context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	var fwd acp.ReadTextFileResponse
	if done, err := a.forwardFile(ctx, acp.ClientMethodFsReadTextFile, req.Path, false, req, &fwd); done {
		if err == nil && int64(len(fwd.Content)) > a.maxFileBytes() {
			return acp.ReadTextFileResponse{}, a.refused(acp.ClientMethodFsReadTextFile, req.Path, tooBig(int64(len(fwd.Content)), a.maxFileBytes()))
		}
		return fwd, err
	}
	r := a.roots
	r.bindTo(a.life)
	if err := r.acquire(ctx); err != nil {
		return acp.ReadTextFileResponse{}, a.refused("fs/read_text_file", req.Path, err)
	}
	defer r.release()
	text, err := r.ReadText(ctx, req.Path, req.Line, req.Limit, a.maxFileBytes())
	if err != nil {
		return acp.ReadTextFileResponse{}, a.refused("fs/read_text_file", req.Path, err)
	}
	return acp.ReadTextFileResponse{Content: text}, nil
}

// WriteTextFile serves fs/write_text_file through the chat's folders: a
// regular file (or a new one) is replaced atomically, keeping its mode.
// When the door client that prompted the turn serves files itself, a write
// inside the roots goes to it instead (forward.go).
func (a *Client) WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	var fwd acp.WriteTextFileResponse
	if done, err := a.forwardFile(ctx, acp.ClientMethodFsWriteTextFile, req.Path, true, req, &fwd); done {
		if err == nil {
			a.chat.Wrote(req.Path)
		}
		return fwd, err
	}
	r := a.roots
	r.bindTo(a.life)
	if err := r.acquire(ctx); err != nil {
		return acp.WriteTextFileResponse{}, a.refused("fs/write_text_file", req.Path, err)
	}
	defer r.release()
	if err := r.WriteText(req.Path, req.Content, a.maxFileBytes()); err != nil {
		return acp.WriteTextFileResponse{}, a.refused("fs/write_text_file", req.Path, err)
	}
	a.chat.Wrote(req.Path)
	return acp.WriteTextFileResponse{}, nil
}

// maxFileBytes is the most one file request may carry (acp.max_file_bytes).
func (a *Client) maxFileBytes() int64 {
	if n := a.fileCap(); n > 0 {
		return n
	}
	return config.DefaultMaxFileBytes
}

// refused logs a refusal with its cause and answers the agent with the
// refusal's safe text only.
func (a *Client) refused(method, path string, err error) *acp.RequestError {
	var r *fsRefusal
	if !errors.As(err, &r) {
		r = refuse(codeInternalError, "file request failed", err)
	}
	log := a.log.Debug
	if r.text == RefusalOutside {
		log = a.log.Warn
	}
	log("refused "+method, "path", path, "reason", r.text, "cause", r.cause)
	data := map[string]any{"path": path, "error": r.text}
	switch r.code {
	case codeInvalidParams:
		return acp.NewInvalidParams(data)
	case codeResourceNotFound:
		return &acp.RequestError{Code: codeResourceNotFound, Message: "Resource not found", Data: data}
	}
	return acp.NewInternalError(data)
}

// ReadText reads a request's file: whole, or the window of line (1-based)
// and limit lines.
func (r Roots) ReadText(ctx context.Context, p string, line, limit *int, max int64) (string, error) {
	f, err := r.openFile(p, openReadFlags, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", inRootError(err)
	}
	if !fi.Mode().IsRegular() {
		return "", refuse(codeInvalidParams, RefusalNotRegular, nil)
	}
	if line == nil && limit == nil {
		if fi.Size() > max {
			return "", tooBig(fi.Size(), max)
		}
		return readAll(f, fi.Size(), max)
	}
	return readWindow(ctx, f, line, limit, max)
}

// copyBuffers hold the buffers readAll copies through, so a small read does
// not clear a fresh one each time.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// readAll reads at most max bytes; a file that grew past it since its size
// was checked is refused too.
func readAll(f *os.File, size, max int64) (string, error) {
	var b strings.Builder
	b.Grow(int(min(size, max)) + 1)
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	n, err := io.CopyBuffer(&b, io.LimitReader(f, max+1), *buf)
	if err != nil {
		return "", inRootError(err)
	}
	if n > max {
		return "", tooBig(n, max)
	}
	return b.String(), nil
}

// readWindow streams the file to the lines asked for, without holding more
// than the window (which must fit in max) in memory.
func readWindow(ctx context.Context, f *os.File, line, limit *int, max int64) (string, error) {
	from, want := 1, -1
	if line != nil && *line > 1 {
		from = *line
	}
	if limit != nil && *limit >= 0 {
		want = *limit
	}
	if want == 0 {
		return "", nil
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var reads int
	cancelled := func() error {
		if reads++; reads%1024 == 0 && ctx.Err() != nil {
			return refuse(codeInternalError, "request cancelled", ctx.Err())
		}
		return nil
	}
	for n := 1; n < from; {
		_, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			n++
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return "", nil
		default:
			return "", inRootError(err)
		}
		if err := cancelled(); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	for got := 0; want < 0 || got < want; {
		chunk, err := br.ReadSlice('\n')
		if int64(b.Len()+len(chunk)) > max {
			return "", refuse(codeInvalidParams, fmt.Sprintf("the lines asked for are over the %s limit of fs/read_text_file (acp.max_file_bytes); ask for fewer", sizeText(max)), nil)
		}
		b.Write(chunk)
		switch {
		case err == nil:
			got++
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return b.String(), nil
		default:
			return "", inRootError(err)
		}
		if err := cancelled(); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func tooBig(size, max int64) *fsRefusal {
	have, limit := sizesText(size, max)
	return refuse(codeInvalidParams, fmt.Sprintf("file is %s, over the %s limit of fs/read_text_file (acp.max_file_bytes); read it in parts with line and limit", have, limit), nil)
}

// sizesText is a size and a limit as a person reads them, in bytes when
// rounding would make them look the same.
func sizesText(size, max int64) (string, string) {
	have, limit := sizeText(size), sizeText(max)
	if have == limit {
		return fmt.Sprintf("%d bytes", size), fmt.Sprintf("%d-byte", max)
	}
	return have, limit
}

// sizeText is a byte count as a person reads it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
