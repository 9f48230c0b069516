package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// FuzzDecodeLine feeds the wire decoder whatever a client could send on one
// line. It never panics; a request it accepts has a valid id (or none); its
// answer, whatever the outcome, is one line of valid JSON-RPC 2.0.
func FuzzDecodeLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"_acpmux/hello"}`,
		`{"jsonrpc":"2.0","id":"a","method":"_acpmux/new","params":{"additionalDirectories":["rel","/x\u0000y"]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"_acpmux/new","params":{"additionalDirectories":["rel"],"additionalFiles":["/etc","rel.md","/a\u0000b"]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"_acpmux/setFiles","params":{"id":"k3x9q2","additionalFiles":[]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"_acpmux/setFiles","params":{"id":"k3x9q2","additionalFiles":"/tmp/a.md"}}`,
		`{"jsonrpc":"2.0","method":"_acpmux/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"_acpmux/export","params":{"id":"k3x9q2","path":"/tmp/x.acpmux.tgz"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"_acpmux/export","params":{"id":"../x","path":"rel/x.tgz"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"_acpmux/import","params":{"path":"/tmp/x.acpmux.tgz","roots":["/src"],"dryRun":true}}`,
		`{"jsonrpc":"2.0","id":5,"method":"_acpmux/import","params":{"path":"/x\u0000","roots":["rel",""],"dryRun":"yes"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"_acpmux/list","params":null}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"_acpmux/hello"}]`,
		`{"jsonrpc":"2.0","id":1e999,"method":"x"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","METHOD":"y","id":2}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":1,`,
		"",
		"  \t ",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, ok, rpcErr := DecodeLine(line)
		if ok && rpcErr != nil {
			t.Fatal("both a request and an error")
		}
		if req.ID != nil && !validID(req.ID) {
			t.Fatalf("invalid id %q kept", req.ID)
		}
		if !ok && rpcErr == nil {
			return // nothing to answer
		}
		var out []byte
		var err error
		if ok {
			if req.Params != nil && !json.Valid(req.Params) {
				t.Fatalf("params %q are not JSON", req.Params)
			}
			out, err = encodeResponse(req.ID, proto.HelloResult{Version: req.Method}, nil)
		} else {
			out, err = encodeResponse(req.ID, nil, rpcErr)
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(out, '\n') != len(out)-1 {
			t.Fatalf("answer is not one line: %q", out)
		}
		var rep struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(out, &rep); err != nil || rep.JSONRPC != "2.0" || !validID(rep.ID) {
			t.Fatalf("answer %q: %v", out, err)
		}
	})
}

// FuzzLineReader checks the bounded line reader against a plain split, the
// input arriving in pieces of any size: lines within the limit come out as
// sent; the first line over it ends reading with errLineTooLong.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), 3)
	f.Add([]byte("abcdef\nx\n"), 5)
	f.Add([]byte("\n\n\n"), 0)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		lr := newLineReader(iotest.OneByteReader(bytes.NewReader(data)), max)
		want := bytes.Split(data, []byte("\n"))
		if len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1] // the last newline ends the last line
		}
		for i, w := range want {
			got, err := lr.next()
			if len(w) > max {
				if !errors.Is(err, errLineTooLong) {
					t.Fatalf("line %d of %d bytes (max %d): %q, %v", i, len(w), max, got, err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, w) {
				t.Fatalf("line %d: %q, %v; want %q", i, got, err, w)
			}
		}
		if _, err := lr.next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last line: %v", err)
		}
	})
}

// chatMethodNames are the chat store's methods in a fixed order, for
// FuzzChatMethods to pick from.
var chatMethodNames = []string{proto.MethodChat, proto.MethodDerive, proto.MethodRemove, proto.MethodRemoveMissing, proto.MethodAddFolders, proto.MethodRemoveFolders, proto.MethodValidate, proto.MethodListDirectory}

// FuzzChatMethods feeds the chat store's methods (chat, derive, remove,
// removeMissing, addFolders, removeFolders, validate, listDirectory) whatever params a
// client could send, against a real store on a temp home with a chat in
// it. No handler panics; every answer is a result or an error with a
// JSON-RPC code the protocol names, which encodes as one line; and
// whatever it answered, the chat's folders stay a list the shared
// validator passes.
func FuzzChatMethods(f *testing.F) {
	for _, seed := range []struct {
		method uint8
		params string
	}{
		{0, `{"id":"k3x9q2"}`},
		{1, `{"id":"k3x9q2","origin":"fork"}`},
		{1, `{"id":"k3x9q2","origin":"handoff","harness":"shell","capsule":"said\u0000"}`},
		{1, `{"id":"k3x9q2","origin":"side","cwd":"rel","name":"a\nb"}`},
		{2, `{"id":"k3x9q2","dryRun":true}`},
		{2, `{"id":"../k3x9q2","force":"yes"}`},
		{3, `{"id":"k3x9q2"}`},
		{4, `{"id":"k3x9q2","additionalDirectories":["rel","/x\u0000y",""]}`},
		{4, `{"id":"k3x9q2","additionalDirectories":"/tmp"}`},
		{5, `{"id":"k3x9q2","additionalDirectories":["/tmp","rel"]}`},
		{6, `{"cwd":"/tmp","additionalDirectories":["/tmp","/"],"additionalFiles":["/etc/passwd","rel.md"]}`},
		{6, `{"cwd":"rel"}`},
		{6, `[]`},
		{7, `{"path":"/"}`},
		{7, `{"path":"rel"}`},
		{7, `{"path":"/tmp/../etc/\u0000"}`},
		{7, `{"path":["/tmp"]}`},
	} {
		f.Add(seed.method, []byte(seed.params))
	}
	root := f.TempDir()
	store, err := sessions.OpenStore(filepath.Join(root, "agent"))
	if err != nil {
		f.Fatal(err)
	}
	dir := filepath.Join(root, "project")
	if err := os.Mkdir(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.DefaultHarness = "shell"
	cfg.Harness = map[string]config.HarnessConfig{"shell": {Command: "/bin/true"}}
	table, err := harness.NewTable(cfg)
	if err != nil {
		f.Fatal(err)
	}
	m := mux.New(mux.Options{Store: store, Table: table, Config: cfg})
	f.Cleanup(m.Close)
	s := newServer(Options{Store: store, Table: table, Config: cfg, Mux: m})
	codes := map[int]bool{proto.CodeInvalidParams: true, proto.CodeFailed: true, proto.CodeChatNotFound: true}
	id := ""
	f.Fuzz(func(t *testing.T, method uint8, params []byte) {
		// The seeds' chat id stands for the chat there is (made again when
		// a removal took it).
		if _, err := store.Load(id); err != nil {
			c, err := store.Create(sessions.NewChat{Harness: "shell", AdditionalDirectories: []string{dir}})
			if err != nil {
				t.Fatal(err)
			}
			id = c.ID
		}
		params = bytes.ReplaceAll(params, []byte("k3x9q2"), []byte(id))
		if !json.Valid(params) {
			return // the wire answers -32700 before any handler
		}
		name := chatMethodNames[int(method)%len(chatMethodNames)]
		res, rpcErr := methods[name](s, nil, params)
		if rpcErr != nil {
			if res != nil || !codes[rpcErr.Code] {
				t.Fatalf("%s %s: result %v, error %d %s", name, params, res, rpcErr.Code, rpcErr.Message)
			}
		}
		out, err := encodeResponse(json.RawMessage("1"), res, rpcErr)
		if err != nil || bytes.IndexByte(out, '\n') != len(out)-1 || !json.Valid(out[:len(out)-1]) {
			t.Fatalf("%s %s: answer %q: %v", name, params, out, err)
		}
		if c, err := store.Load(id); err == nil {
			if _, err := store.ValidateFolders(c.Cwd, c.AdditionalDirectories); err != nil && len(sessions.CheckStoredFolders(c.Cwd, c.AdditionalDirectories)) == 0 {
				t.Fatalf("%s %s left folders the validator refuses: %v", name, params, err)
			}
		}
	})
}

// FuzzPromptAnswer: a door's prompt's answer says what the encoder's
// line says, for any id and stop reason.
func FuzzPromptAnswer(f *testing.F) {
	for _, seed := range []struct{ id, reason string }{
		{"1", "end_turn"}, {"42", "cancelled"}, {`"abc"`, "end_turn"}, {"7", `a "quoted" \ reason`},
		{"7", "<html> & é \u2028"}, {"7", "\x01\xff"}, {"-1", ""},
	} {
		f.Add(seed.id, seed.reason)
	}
	f.Fuzz(func(t *testing.T, id, reason string) {
		if !json.Valid([]byte(id)) {
			return // ids come from a line that was read as JSON
		}
		r := sdk.PromptResponse{StopReason: sdk.StopReason(reason)}
		got, err := encodeResponse(json.RawMessage(id), r, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameAnswer(t, id, r, got)
	})
}
