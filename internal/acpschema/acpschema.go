// Package acpschema validates Agent Client Protocol messages against the
// official ACP JSON Schema, for tests.
//
// The schema is not vendored: scripts/test installs @agentclientprotocol/sdk
// with npm into the git-ignored folder .peers at the module root, and Find
// locates schema/v1/schema.json (the stable protocol) and schema.unstable.json
// (which adds methods such as session/fork) there. Tests that need it call
// ForTest, which skips when the schema is absent, except under
// ACPMUX_REQUIRE_PEERS=1, where the absence is a failure.
//
// The schema's own message types (ClientRequest and friends) do not tie a
// method to its params: any params object of any request matches. The
// Validator therefore reads the x-method and x-side annotations of the
// schema's $defs and checks a request's params against the definition for
// its own method, so a session/new whose additionalDirectories is not a list
// fails even though some other request's params would have accepted it.
//
// The schema does not check that paths are absolute; that is the job of the
// shared folder validator and of the agent.
package acpschema

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaDir is where scripts/test installs the ACP JSON Schema, relative to
// the module root.
const SchemaDir = ".peers/node_modules/@agentclientprotocol/sdk/schema/v1"

// RequirePeersEnv names the environment variable that turns a missing peer
// (or schema) from a skip into a failure when set to "1".
const RequirePeersEnv = "ACPMUX_REQUIRE_PEERS"

// Find locates the stable and unstable ACP schema files by walking up from
// the working directory to the module root (the first folder holding
// go.mod), looking for SchemaDir in each folder on the way. ok is false
// unless both files exist.
func Find() (stable, unstable string, ok bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", "", false
	}
	for {
		s := filepath.Join(dir, SchemaDir, "schema.json")
		u := filepath.Join(dir, SchemaDir, "schema.unstable.json")
		if isFile(s) && isFile(u) {
			return s, u, true
		}
		if isFile(filepath.Join(dir, "go.mod")) {
			return "", "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", false
		}
		dir = parent
	}
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// SkipUnlessPeers skips the test with reason, or fails it with reason when
// ACPMUX_REQUIRE_PEERS=1 (as scripts/test sets), so that a missing real peer
// or schema never passes silently in the full run.
func SkipUnlessPeers(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv(RequirePeersEnv) == "1" {
		t.Fatal(reason + " (required: " + RequirePeersEnv + "=1)")
	}
	t.Skip(reason)
}

// ForTest finds and loads the ACP schema for a test. When the schema is not
// installed it calls SkipUnlessPeers; when it does not load, the test fails.
func ForTest(t testing.TB) *Validator {
	t.Helper()
	stable, unstable, ok := Find()
	if !ok {
		SkipUnlessPeers(t, "ACP JSON Schema not installed at "+SchemaDir+
			" (scripts/test installs @agentclientprotocol/sdk@2.4.0 there)")
	}
	v, err := Load(stable, unstable)
	if err != nil {
		t.Fatalf("load ACP schema: %v", err)
	}
	return v
}

// Validator checks raw JSON-RPC messages against the ACP JSON Schema. It is
// immutable once loaded and safe for concurrent use.
type Validator struct {
	stable   *schemaSet
	unstable *schemaSet // nil when no unstable schema was given
}

// schemaSet is one schema file compiled into the pieces a client message is
// checked against.
type schemaSet struct {
	name string // "stable" or "unstable", for error messages

	// Message envelopes, as the schema defines them.
	request, notification, response, rpcError *jsonschema.Schema

	// By method: the params of a request or notification a client sends
	// to an agent, and the result of a client's response to an agent's
	// request.
	requests      map[string]*jsonschema.Schema
	notifications map[string]*jsonschema.Schema
	responses     map[string]*jsonschema.Schema

	// The agent's side (what the door sends): its envelopes, and by
	// method the result of its answer to a client's request and the
	// params of its notifications and requests to the client.
	agentResponse, agentNotification, agentRequest *jsonschema.Schema
	agentResponses                                 map[string]*jsonschema.Schema
	agentNotifications                             map[string]*jsonschema.Schema
	agentRequests                                  map[string]*jsonschema.Schema
}

// Load compiles the stable schema and, unless unstable is empty, the
// unstable one. Methods found only in the unstable schema (session/fork)
// are validated against it.
func Load(stable, unstable string) (*Validator, error) {
	s, err := loadSet(stable, "stable")
	if err != nil {
		return nil, err
	}
	v := &Validator{stable: s}
	if unstable != "" {
		if v.unstable, err = loadSet(unstable, "unstable"); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func loadSet(path, name string) (*schemaSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load %s ACP schema: %w", name, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("load %s ACP schema %s: %w", name, path, err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("load %s ACP schema %s: not a JSON object", name, path)
	}
	defs, ok := root["$defs"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("load %s ACP schema %s: no $defs", name, path)
	}

	url := "file:///acp/" + name + "/schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("load %s ACP schema %s: %w", name, path, err)
	}
	compile := func(def string) (*jsonschema.Schema, error) {
		sch, err := c.Compile(url + "#/$defs/" + def)
		if err != nil {
			return nil, fmt.Errorf("compile %s ACP schema $defs/%s: %w", name, def, err)
		}
		return sch, nil
	}

	set := &schemaSet{
		name:          name,
		requests:      map[string]*jsonschema.Schema{},
		notifications: map[string]*jsonschema.Schema{},
		responses:     map[string]*jsonschema.Schema{},

		agentResponses:     map[string]*jsonschema.Schema{},
		agentNotifications: map[string]*jsonschema.Schema{},
		agentRequests:      map[string]*jsonschema.Schema{},
	}
	for _, p := range []struct {
		def string
		dst **jsonschema.Schema
	}{
		{"ClientRequest", &set.request},
		{"ClientNotification", &set.notification},
		{"ClientResponse", &set.response},
		{"Error", &set.rpcError},
		{"AgentResponse", &set.agentResponse},
		{"AgentNotification", &set.agentNotification},
		{"AgentRequest", &set.agentRequest},
	} {
		if *p.dst, err = compile(p.def); err != nil {
			return nil, err
		}
	}

	// Sorted so that compile errors, if any, are reported deterministically.
	names := make([]string, 0, len(defs))
	for k := range defs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, def := range names {
		obj, _ := defs[def].(map[string]any)
		method, _ := obj["x-method"].(string)
		side, _ := obj["x-side"].(string)
		if method == "" {
			continue
		}
		if side == "protocol" && strings.HasSuffix(def, "Notification") {
			// Either side sends it ($/cancel_request).
			sch, err := compile(def)
			if err != nil {
				return nil, err
			}
			set.notifications[method], set.agentNotifications[method] = sch, sch
			continue
		}
		var dst map[string]*jsonschema.Schema
		switch {
		case side == "agent" && strings.HasSuffix(def, "Request"):
			dst = set.requests // handled by the agent: sent by the client
		case (side == "agent" || side == "protocol") && strings.HasSuffix(def, "Notification"):
			dst = set.notifications
		case side == "client" && strings.HasSuffix(def, "Response"):
			dst = set.responses // the client answering the agent
		case side == "agent" && strings.HasSuffix(def, "Response"):
			dst = set.agentResponses // the agent answering the client
		case side == "client" && strings.HasSuffix(def, "Notification"):
			dst = set.agentNotifications // sent by the agent (session/update)
		case side == "client" && strings.HasSuffix(def, "Request"):
			dst = set.agentRequests // sent by the agent (session/request_permission)
		default:
			continue
		}
		sch, err := compile(def)
		if err != nil {
			return nil, err
		}
		dst[method] = sch
	}
	if len(set.requests) == 0 {
		return nil, fmt.Errorf("load %s ACP schema %s: no x-method annotated requests found", name, path)
	}
	return set, nil
}

// Methods lists the methods a client may send (requests and notifications),
// stable first, then those found only in the unstable schema.
func (v *Validator) Methods() []string {
	var out []string
	seen := map[string]bool{}
	for _, set := range []*schemaSet{v.stable, v.unstable} {
		if set == nil {
			continue
		}
		var ms []string
		for m := range set.requests {
			ms = append(ms, m)
		}
		for m := range set.notifications {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		for _, m := range ms {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// lookup finds the schema for method in the stable set, else the unstable
// one, and says which set it came from.
func (v *Validator) lookup(pick func(*schemaSet) map[string]*jsonschema.Schema, method string) (*schemaSet, *jsonschema.Schema) {
	for _, set := range []*schemaSet{v.stable, v.unstable} {
		if set == nil {
			continue
		}
		if sch := pick(set)[method]; sch != nil {
			return set, sch
		}
	}
	return nil, nil
}

// ValidateClientMessage validates one raw JSON-RPC message that a client
// sent to an agent: a request (its params against the definition for its
// method), a notification (session/cancel, $/cancel_request), or a response
// to an agent's request. A response carries no method, so its result is
// checked against the union of every client response; use
// ValidateClientResponse when the method is known. An unknown method,
// including an extension ("_"-prefixed) method, is an error.
func (v *Validator) ValidateClientMessage(raw []byte) error {
	msg, err := decode(raw)
	if err != nil {
		return err
	}
	method, hasMethod := msg["method"]
	_, hasID := msg["id"]
	switch {
	case hasMethod:
		name, ok := method.(string)
		if !ok {
			return errors.New("method is not a string")
		}
		params, ok := msg["params"]
		if !ok || params == nil {
			// Absent or null params are read as an empty object, so a
			// method with required params fails.
			params = map[string]any{}
		}
		if hasID {
			set, sch := v.lookup(func(s *schemaSet) map[string]*jsonschema.Schema { return s.requests }, name)
			if sch == nil {
				return fmt.Errorf("unknown client request method %q", name)
			}
			if err := set.request.Validate(msg); err != nil {
				return fmt.Errorf("%s request envelope (%s schema): %w", name, set.name, err)
			}
			if err := sch.Validate(params); err != nil {
				return fmt.Errorf("%s params (%s schema): %w", name, set.name, err)
			}
			return nil
		}
		set, sch := v.lookup(func(s *schemaSet) map[string]*jsonschema.Schema { return s.notifications }, name)
		if sch == nil {
			return fmt.Errorf("unknown client notification method %q", name)
		}
		if err := set.notification.Validate(msg); err != nil {
			return fmt.Errorf("%s notification envelope (%s schema): %w", name, set.name, err)
		}
		if err := sch.Validate(params); err != nil {
			return fmt.Errorf("%s params (%s schema): %w", name, set.name, err)
		}
		return nil
	case hasID:
		return v.validateResponse(msg, "")
	default:
		return errors.New("message has neither method nor id")
	}
}

// ValidateClientResponse validates a client's response to the agent's
// request method (such as fs/read_text_file or session/request_permission):
// an error response against the schema's Error, a result against the
// definition for that method.
func (v *Validator) ValidateClientResponse(method string, raw []byte) error {
	msg, err := decode(raw)
	if err != nil {
		return err
	}
	if _, ok := msg["method"]; ok {
		return errors.New("not a response: message has a method")
	}
	if _, ok := msg["id"]; !ok {
		return errors.New("not a response: message has no id")
	}
	return v.validateResponse(msg, method)
}

func (v *Validator) validateResponse(msg map[string]any, method string) error {
	result, hasResult := msg["result"]
	rpcErr, hasError := msg["error"]
	switch {
	case hasResult && hasError:
		return errors.New("response has both result and error")
	case !hasResult && !hasError:
		return errors.New("response has neither result nor error")
	}
	set := v.stable
	var sch *jsonschema.Schema
	if method != "" {
		set, sch = v.lookup(func(s *schemaSet) map[string]*jsonschema.Schema { return s.responses }, method)
		if sch == nil {
			return fmt.Errorf("unknown agent request method %q for a client response", method)
		}
	}
	what := "response"
	if method != "" {
		what = method + " response"
	}
	if err := set.response.Validate(msg); err != nil {
		return fmt.Errorf("%s envelope (%s schema): %w", what, set.name, err)
	}
	if hasError {
		if err := set.rpcError.Validate(rpcErr); err != nil {
			return fmt.Errorf("%s error (%s schema): %w", what, set.name, err)
		}
		return nil
	}
	if sch != nil {
		if err := sch.Validate(result); err != nil {
			return fmt.Errorf("%s result (%s schema): %w", what, set.name, err)
		}
	}
	return nil
}

// ValidateAgentMessage validates one raw JSON-RPC message that an agent
// sent to a client: a notification or request (its params against the
// definition for its method), or its answer to the client's request
// method (the result against that method's response; an error against
// the schema's Error). method is ignored for a notification or request.
func (v *Validator) ValidateAgentMessage(method string, raw []byte) error {
	msg, err := decode(raw)
	if err != nil {
		return err
	}
	if m, ok := msg["method"].(string); ok {
		_, isRequest := msg["id"]
		pick := func(s *schemaSet) map[string]*jsonschema.Schema { return s.agentNotifications }
		if isRequest {
			pick = func(s *schemaSet) map[string]*jsonschema.Schema { return s.agentRequests }
		}
		set, sch := v.lookup(pick, m)
		if sch == nil {
			return fmt.Errorf("unknown agent method %q", m)
		}
		env := set.agentNotification
		if isRequest {
			env = set.agentRequest
		}
		if err := env.Validate(msg); err != nil {
			return fmt.Errorf("%s envelope (%s schema): %w", m, set.name, err)
		}
		if err := sch.Validate(msg["params"]); err != nil {
			return fmt.Errorf("%s params (%s schema): %w", m, set.name, err)
		}
		return nil
	}
	set, sch := v.lookup(func(s *schemaSet) map[string]*jsonschema.Schema { return s.agentResponses }, method)
	if sch == nil {
		return fmt.Errorf("unknown client request method %q for an agent response", method)
	}
	if err := set.agentResponse.Validate(msg); err != nil {
		return fmt.Errorf("%s response envelope (%s schema): %w", method, set.name, err)
	}
	if rpcErr, ok := msg["error"]; ok {
		if err := set.rpcError.Validate(rpcErr); err != nil {
			return fmt.Errorf("%s error (%s schema): %w", method, set.name, err)
		}
		return nil
	}
	if err := sch.Validate(msg["result"]); err != nil {
		return fmt.Errorf("%s result (%s schema): %w", method, set.name, err)
	}
	return nil
}

// ValidateClientWire validates a stream of newline-delimited messages that a
// client sent (such as the acpfake ACPMUX_FAKE_WIRE file), skipping blank
// lines. The error names every bad line by its 1-based number.
func (v *Validator) ValidateClientWire(data []byte) error {
	var errs []error
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := v.ValidateClientMessage(line); err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w\n\t%s", i+1, err, truncate(line, 400)))
		}
	}
	return errors.Join(errs...)
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// decode parses one JSON-RPC message and checks the parts of the envelope
// the schema's message definitions leave to the root: an object with
// "jsonrpc": "2.0".
func decode(raw []byte) (map[string]any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	msg, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	if msg["jsonrpc"] != "2.0" {
		return nil, fmt.Errorf(`jsonrpc is %v, want "2.0"`, msg["jsonrpc"])
	}
	return msg, nil
}
