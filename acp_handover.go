package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/acp"
	"github.com/acpmux/acpmux-tui/internal/rpcline"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is `acpmux-tui acp` handing its client's stdio to the server
// (proto.AdoptParams' door), as `proxy` does its own: the server then reads
// the client's lines and writes its answers and updates itself, and this
// process, which copied every line both ways, only waits for the end. The
// server keeps the client's open requests in a file this process made and
// handed over with the stdio, so that when the server dies (the socket
// closes without proto.AdoptEndedLine) every request left open still gets
// an error answer here, as the copying bridge (acp.Bridge) gives one.

// doorHandOver hands the server this process's stdin and stdout, and a
// file of the open requests, for a door on harness; it reports false when
// the server does not take them (one older than the hand-over; nc has
// then made a call, and the bridge needs a fresh connection).
func doorHandOver(nc *net.UnixConn, harness string) (open *os.File, handed bool, err error) {
	open, err = openRequestsFile()
	if err != nil {
		return nil, false, nil // no file for them here: the bridge copies
	}
	line, err := json.Marshal(struct {
		JSONRPC string            `json:"jsonrpc"`
		ID      string            `json:"id"`
		Method  string            `json:"method"`
		Params  proto.AdoptParams `json:"params"`
	}{"2.0", "adopt", proto.MethodAdopt, proto.AdoptParams{Door: &proto.AdoptDoor{Harness: harness}}})
	if err != nil {
		open.Close()
		return nil, false, err
	}
	if _, _, err := nc.WriteMsgUnix(append(line, '\n'), unix.UnixRights(int(os.Stdin.Fd()), int(os.Stdout.Fd()), int(open.Fd())), nil); err != nil {
		open.Close()
		return nil, false, err
	}
	if handed, err = adopted(nc); err != nil || !handed {
		open.Close()
		return nil, false, err
	}
	return open, true, nil
}

// awaitHandedDoor waits for the end of a door the server took: nil when
// the connection ended by itself (the client closed its input), else the
// server went away, and each request the client left open has been
// answered with an error, the requests the server had taken (open) and
// those still unread in stdin alike.
func awaitHandedDoor(nc *net.UnixConn, open *os.File, out io.Writer, logger *slog.Logger) error {
	defer open.Close()
	said, _ := io.ReadAll(nc)
	if bytes.Contains(said, []byte(proto.AdoptEndedLine)) {
		return nil
	}
	why := errors.New("end of the socket")
	ids := openRequests(open)
	ids = append(ids, unreadRequests(os.Stdin)...)
	for _, id := range ids {
		_, _ = out.Write(acp.ErrorLine(id, acp.CodeInternalError, acp.GoneMessage(why)))
	}
	logger.Warn("the server went away under the ACP door", "answered", len(ids))
	return fmt.Errorf("%w: %v", acp.ErrServerGone, why)
}

// openRequests reads the ids the server took and did not answer, in the
// order taken.
func openRequests(f *os.File) []json.RawMessage {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
	if err != nil {
		return nil
	}
	var order []string
	open := map[string]bool{}
	for line := range bytes.Lines(proto.DoorLog(data)) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) < 2 || !json.Valid(line[1:]) {
			continue // a line cut short as the server died
		}
		id := string(line[1:])
		switch line[0] {
		case proto.DoorTook:
			if !open[id] {
				order = append(order, id)
			}
			open[id] = true
		case proto.DoorAnswered:
			open[id] = false
		}
	}
	var ids []json.RawMessage
	for _, id := range order {
		if open[id] {
			ids = append(ids, json.RawMessage(id))
		}
	}
	return ids
}

// unreadRequests reads what the client wrote that nobody read (the server
// died first) without waiting for more, and returns the ids of the
// requests in it.
func unreadRequests(in *os.File) []json.RawMessage {
	fd := int(in.Fd())
	if unix.SetNonblock(fd, true) != nil {
		return nil
	}
	defer unix.SetNonblock(fd, false)
	var data []byte
	buf := make([]byte, 64<<10)
	for len(data) < acp.MaxLine {
		n, err := unix.Read(fd, buf)
		if n <= 0 || err != nil {
			break
		}
		data = append(data, buf[:n]...)
	}
	var ids []json.RawMessage
	for line := range bytes.Lines(data) {
		if m, ok := rpcline.Split(bytes.TrimSpace(line)); ok && m.Method != nil && m.ID != nil {
			ids = append(ids, m.ID)
		}
	}
	return ids
}
