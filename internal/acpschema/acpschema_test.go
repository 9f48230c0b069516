package acpschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateClientMessage(t *testing.T) {
	v := ForTest(t)
	tests := []struct {
		name    string
		msg     string
		wantErr string // empty: valid
	}{
		{"initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}},"clientInfo":{"name":"acpmux-tui","version":"dev"}}}`, ""},
		{"initialize without protocolVersion", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientCapabilities":{}}}`, "protocolVersion"},
		{"initialize without params", `{"jsonrpc":"2.0","id":0,"method":"initialize"}`, "protocolVersion"},
		{"initialize with string version", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1"}}`, "initialize params"},
		{"session/new", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/me/app","mcpServers":[],"additionalDirectories":["/home/me/lib"]}}`, ""},
		{"session/new without the field", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/me/app","mcpServers":[]}}`, ""},
		{"session/new folders not a list", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/me/app","mcpServers":[],"additionalDirectories":"notalist"}}`, "additionalDirectories"},
		{"session/new folder not a string", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/a","mcpServers":[],"additionalDirectories":[1]}}`, "additionalDirectories"},
		{"session/new without mcpServers", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/me/app"}}`, "mcpServers"},
		{"session/new mcpServers null (the SDK's nil slice)", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/a","mcpServers":null}}`, "mcpServers"},
		{"session/load", `{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"s1","cwd":"/a","mcpServers":[],"additionalDirectories":["/b"]}}`, ""},
		{"session/load without sessionId", `{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"cwd":"/a","mcpServers":[]}}`, "sessionId"},
		{"session/resume", `{"jsonrpc":"2.0","id":2,"method":"session/resume","params":{"sessionId":"s1","cwd":"/a"}}`, ""},
		{"session/fork (unstable)", `{"jsonrpc":"2.0","id":3,"method":"session/fork","params":{"sessionId":"s1","cwd":"/a","additionalDirectories":["/b"]}}`, ""},
		{"session/fork folders not a list", `{"jsonrpc":"2.0","id":3,"method":"session/fork","params":{"sessionId":"s1","cwd":"/a","additionalDirectories":{}}}`, "unstable schema"},
		{"session/prompt", `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`, ""},
		{"session/prompt without prompt", `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1"}}`, "prompt"},
		{"session/cancel", `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`, ""},
		{"session/cancel without session", `{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, "sessionId"},
		{"$/cancel_request", `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`, ""},
		{"read response", `{"jsonrpc":"2.0","id":1,"result":{"content":"hello"}}`, ""},
		{"permission response", `{"jsonrpc":"2.0","id":2,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`, ""},
		{"error response", `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"outside the chat's folders"}}`, ""},
		{"error response without message", `{"jsonrpc":"2.0","id":3,"error":{"code":-32602}}`, "message"},
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"session/teleport","params":{}}`, "unknown client request method"},
		{"agent-side method from a client", `{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}`, "unknown client request method"},
		{"unknown notification", `{"jsonrpc":"2.0","method":"session/update","params":{}}`, "unknown client notification"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`, "jsonrpc"},
		{"not JSON", `this is not json`, "not JSON"},
		{"not an object", `[1,2]`, "not a JSON object"},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, "both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.ValidateClientMessage([]byte(tt.msg))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("want an error mentioning %q, got none", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("want an error mentioning %q, got %v", tt.wantErr, err)
			}
		})
	}
}

func TestValidateClientResponse(t *testing.T) {
	v := ForTest(t)
	tests := []struct {
		method, msg string
		valid       bool
	}{
		{"fs/read_text_file", `{"jsonrpc":"2.0","id":1,"result":{"content":"x"}}`, true},
		{"fs/read_text_file", `{"jsonrpc":"2.0","id":1,"result":{}}`, false},
		{"fs/write_text_file", `{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{"fs/write_text_file", `{"jsonrpc":"2.0","id":1,"result":null}`, false},
		{"session/request_permission", `{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"cancelled"}}}`, true},
		{"session/request_permission", `{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected"}}}`, false},
		{"session/request_permission", `{"jsonrpc":"2.0","id":1,"result":{"content":"x"}}`, false},
		{"session/request_permission", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"no"}}`, true},
		{"session/new", `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`, false}, // not a client response
	}
	for _, tt := range tests {
		err := v.ValidateClientResponse(tt.method, []byte(tt.msg))
		if (err == nil) != tt.valid {
			t.Errorf("%s %s: valid=%v, got err %v", tt.method, tt.msg, tt.valid, err)
		}
	}
}

func TestValidateClientWire(t *testing.T) {
	v := ForTest(t)
	good := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\n\n" +
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` + "\n"
	if err := v.ValidateClientWire([]byte(good)); err != nil {
		t.Fatalf("good wire: %v", err)
	}
	bad := good + `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/a","mcpServers":[],"additionalDirectories":"x"}}` + "\n"
	err := v.ValidateClientWire([]byte(bad))
	if err == nil || !strings.Contains(err.Error(), "line 4:") {
		t.Fatalf("bad wire: want an error naming line 4, got %v", err)
	}
}

func TestMethodsIncludeFork(t *testing.T) {
	v := ForTest(t)
	ms := strings.Join(v.Methods(), " ")
	for _, m := range []string{"initialize", "session/new", "session/load", "session/resume", "session/prompt", "session/cancel", "session/fork"} {
		if !strings.Contains(" "+ms+" ", " "+m+" ") {
			t.Errorf("Methods() lacks %s: %s", m, ms)
		}
	}
}

func TestFindWalksUpToTheModuleRoot(t *testing.T) {
	// Run from a folder below the module root: the package folder itself.
	stable, unstable, ok := Find()
	if !ok {
		SkipUnlessPeers(t, "ACP JSON Schema not installed at "+SchemaDir)
	}
	if !strings.HasSuffix(stable, "/schema.json") || !strings.HasSuffix(unstable, "/schema.unstable.json") {
		t.Fatalf("Find() = %q, %q", stable, unstable)
	}
}

func TestFindStopsAtTheModuleRoot(t *testing.T) {
	parent := t.TempDir()
	mod := filepath.Join(parent, "mod")
	sub := filepath.Join(mod, "internal", "x")
	writeSchemas := func(root string) {
		t.Helper()
		dir := filepath.Join(root, SchemaDir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"schema.json", "schema.unstable.json"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSchemas(parent) // above the module root: must not be found
	t.Chdir(sub)
	if s, u, ok := Find(); ok {
		t.Fatalf("Find() looked past the module root: %q, %q", s, u)
	}
	writeSchemas(mod)
	s, _, ok := Find()
	if !ok || !strings.HasPrefix(s, mod) {
		t.Fatalf("Find() = %q, %v; want the schema under %s", s, ok, mod)
	}
}

func TestForTestSkipsWithoutTheSchema(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv(RequirePeersEnv, "")
	reached := false
	ok := t.Run("inner", func(t *testing.T) {
		ForTest(t)
		reached = true
	})
	if !ok || reached {
		t.Fatalf("ForTest without the schema: passed=%v, continued=%v; want a skip", ok, reached)
	}
}
