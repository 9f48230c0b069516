package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/coder/acp-go-sdk"
)

// maxBig bounds the size the big commands take (64 MiB).
const maxBig = 64 << 20

// bigText is n bytes of text in lines of 64, as a generated file has.
func bigText(n int) string {
	line := strings.Repeat("0123456789abcdef", 4)[:63] + "\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

func bigSize(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxBig {
		return 0, fmt.Errorf("want a size from 0 to %d bytes, got %q", maxBig, s)
	}
	return n, nil
}

func init() {
	// write-big PATH N: fs/write_text_file of N bytes of text (lines of
	// 64), sent by the SDK as any write is; replies as write does.
	attacks["write-big"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		path, size, _ := strings.Cut(arg, " ")
		n, err := bigSize(size)
		if err != nil {
			return "", fmt.Errorf("write-big: %w", err)
		}
		logf("acpfake: write-big of %d bytes to %s", n, path)
		return t.write(path, bigText(n))
	}

	// request-id-last N: a raw fs/write_text_file request of N bytes of
	// content with its id, "big-1", after its params (as an agent whose
	// encoder sorts or appends keys writes it), then the echo. The SDK here
	// knows nothing of the request: the client's answer is seen only in
	// what the client sent.
	attacks["request-id-last"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		n, err := bigSize(arg)
		if err != nil {
			return "", fmt.Errorf("request-id-last: %w", err)
		}
		line := fmt.Sprintf(`{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"sessionId":%q,"path":"/nonexistent/big.txt","content":"%s"},"id":"big-1"}`+"\n",
			t.sid, strings.ReplaceAll(bigText(n), "\n", `\n`))
		if err := t.a.out.writeRaw([]byte(line)); err != nil {
			return "", err
		}
		return t.stopReason(), t.say("request-id-last: sent " + strconv.Itoa(len(line)-1) + " bytes")
	}
}
