package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	sdk "github.com/coder/acp-go-sdk"
)

// This file is what a web caller may do: less than a local client. Every
// call of a web connection passes webRefusal before its handler or the ACP
// door sees it:
//   - only the methods in webRules are served; the rest (kill-server,
//     export and import, remove, a harness's hooks, a terminal attach) are
//     -32601 to the web;
//   - every folder, file and listed path it names must be inside a web
//     root after canonicalising (symbolic links resolved), or, for a
//     chat's own folder, be the folder of a chat that exists; else -32602
//     naming each entry, before the folder validator runs, and nothing is
//     written. With no roots a web caller uses the chats that exist and
//     names no folder;
//   - no MCP server with an environment, and no answer to a permission
//     request that grants something lasting (the door offers a web client
//     only allow once and reject once: Door.GrantOnceOnly).

// webRule checks one method's params for a web caller; nil lets the
// method through as it is.
type webRule func(s *Server, params json.RawMessage) *Error

// webRules are the methods a web caller may make. A test holds every
// method of proto and of the door to this table or to webRefused.
var webRules = map[string]webRule{
	// The chats, their screens, keys and sizes, their turns.
	proto.MethodHello: nil, proto.MethodList: nil, proto.MethodLive: nil, proto.MethodConfig: nil,
	proto.MethodChat: nil, proto.MethodRename: nil,
	proto.MethodStart: nil, proto.MethodStop: nil, proto.MethodRestart: nil,
	proto.MethodWatch: nil, proto.MethodResize: nil, proto.MethodBudget: nil, proto.MethodShow: nil,
	proto.MethodWrite: nil, proto.MethodRender: nil, proto.MethodTranscript: nil, proto.MethodHistory: nil,
	proto.MethodLook: nil, proto.MethodReview: nil, proto.MethodReviewDiff: nil,
	proto.MethodObserve: nil, proto.MethodUnobserve: nil, proto.MethodReady: nil,
	proto.MethodPrompt: nil, proto.MethodCancel: nil, proto.MethodCapsule: nil,
	proto.MethodRemoveFolders: nil, proto.MethodFoldersChanged: nil,
	proto.MethodAnswerPermission: webRule((*Server).webAnswer),
	// An ACP chat's mode and options, as the door's session/set_mode and
	// session/set_config_option.
	proto.MethodOptions: nil, proto.MethodSetOption: nil,
	// The files a prompt may mention: the handler holds a web caller to
	// the chat's folder and its folders inside the roots (mentionfiles.go).
	proto.MethodFiles: nil,
	// Other hosts' chats, each host holding the call to its own roots
	// (webhosts.go).
	proto.MethodHost: nil, proto.MethodWebCaller: nil,

	// What names folders and files: held to the web roots.
	proto.MethodNew:            webParams(func(p proto.NewParams) webPaths { return newPaths(p) }),
	proto.MethodCreateAndStart: webParams(func(p proto.CreateAndStartParams) webPaths { return newPaths(p.NewParams) }),
	proto.MethodValidate: webParams(func(p proto.ValidateParams) webPaths {
		return webPaths{cwd: p.Cwd, dirs: p.AdditionalDirectories, files: p.AdditionalFiles}
	}),
	proto.MethodDerive: webParams(func(p proto.DeriveParams) webPaths { return webPaths{cwd: p.Cwd} }),
	proto.MethodSetDirectories: webParams(func(p proto.SetDirectoriesParams) webPaths {
		return webPaths{dirs: deref(p.AdditionalDirectories)}
	}),
	proto.MethodSetFiles: webParams(func(p proto.SetFilesParams) webPaths { return webPaths{files: deref(p.AdditionalFiles)} }),
	proto.MethodAddFolders: webParams(func(p proto.FoldersParams) webPaths {
		return webPaths{dirs: p.AdditionalDirectories}
	}),
	proto.MethodListDirectory: webParams(func(p proto.ListDirectoryParams) webPaths { return webPaths{listed: p.Path} }),

	// The ACP door: held to the roots the same way, and no MCP server
	// with an environment.
	sdk.AgentMethodInitialize: nil, sdk.AgentMethodAuthenticate: nil, sdk.AgentMethodSessionList: nil,
	sdk.AgentMethodSessionPrompt: nil, sdk.AgentMethodSessionCancel: nil, sdk.AgentMethodSessionClose: nil,
	sdk.AgentMethodSessionSetMode: nil, sdk.AgentMethodSessionSetConfigOption: nil,
	sdk.AgentMethodSessionNew:    webParams(acpPaths),
	sdk.AgentMethodSessionLoad:   webParams(acpPaths),
	sdk.AgentMethodSessionResume: webParams(acpPaths),
	sdk.AgentMethodSessionFork:   webParams(acpPaths),
}

// webRefused are the methods no web caller makes, and why.
var webRefused = map[string]string{
	proto.MethodKill:           "stops every chat: a local client's to do",
	proto.MethodAdopt:          "hands over a local process's stdin and stdout",
	proto.MethodRemove:         "deletes a chat and its folder: a local client's to do",
	proto.MethodRemoveMissing:  "rewrites a chat's lists from what this machine has",
	proto.MethodExport:         "writes a bundle to a path of this machine",
	proto.MethodImport:         "reads a bundle from a path of this machine",
	proto.MethodFill:           "a harness's prewarmed pool is the local TUI's",
	proto.MethodForget:         "a local client's cache",
	proto.MethodAttach:         "a terminal attached through acpmux-tui attach",
	proto.MethodAttachInput:    "a terminal attached through acpmux-tui attach",
	proto.MethodAttachResize:   "a terminal attached through acpmux-tui attach",
	proto.MethodDetach:         "a terminal attached through acpmux-tui attach",
	proto.MethodAttachTerminal: "hands over a local terminal",
	proto.MethodLendPane:       "hands over a local terminal",
	proto.MethodPaneDraw:       "a local terminal handed over",
	proto.MethodPaneBack:       "a local terminal handed over",
	proto.MethodHook:           "a harness's own status reports, from its process on this machine",
	proto.MethodWeb:            "opens the web listener: a local client's to do",
	proto.MethodSearch:         "reads the harnesses' session logs of this machine, beyond the web roots",
	proto.MethodSignIn:         "runs an agent's login command in a new chat and names the config file: a local client's to do",
	proto.MethodGitOp:          "commits, pushes and merges in repositories of this machine, beyond the web roots: a local client's to do",

	// The ACP door's.
	sdk.AgentMethodSessionDelete: "deletes a chat and its folder: a local client's to do",
}

// webRefusal is nil when a web caller may make req as it is, else the
// refusal to answer.
func (s *Server) webRefusal(req Request) *Error {
	rule, ok := webRules[req.Method]
	if !ok {
		why := webRefused[req.Method]
		if why == "" {
			why = "not served to web callers"
		}
		return errorf(proto.CodeMethodNotFound, "Method not found: %q is not for web callers (%s)", clipText(req.Method), why)
	}
	if rule == nil {
		return nil
	}
	return rule(s, req.Params)
}

// webPaths are the paths one call names: a chat's own folder (cwd), its
// added folders and files, or a folder to list.
type webPaths struct {
	cwd         string
	dirs, files []string
	listed      string
	// chat, when set, is the chat whose folders and files dirs and files
	// replace: those it already has pass as they are.
	chat string
	// mcpEnv names the MCP servers given with an environment.
	mcpEnv []string
}

// webParams makes a rule of a function that reads the paths of a
// method's params (decoded as its handler decodes them; params of the
// wrong shape pass on to the handler, which refuses them).
func webParams[P any](paths func(P) webPaths) webRule {
	return func(s *Server, raw json.RawMessage) *Error {
		var p P
		if len(raw) > 0 && json.Unmarshal(raw, &p) != nil {
			return nil
		}
		return s.webHolds(paths(p))
	}
}

func newPaths(p proto.NewParams) webPaths {
	return webPaths{cwd: p.Cwd, dirs: p.AdditionalDirectories, files: p.AdditionalFiles}
}

func deref(p *[]string) []string {
	if p == nil {
		return nil
	}
	return *p
}

// acpParams are the fields of session/new, load, resume and fork that
// name paths or MCP servers.
type acpParams struct {
	SessionID             string   `json:"sessionId"`
	Cwd                   string   `json:"cwd"`
	AdditionalDirectories []string `json:"additionalDirectories"`
	McpServers            []struct {
		Name string            `json:"name"`
		Env  []json.RawMessage `json:"env"`
	} `json:"mcpServers"`
}

func acpPaths(p acpParams) webPaths {
	w := webPaths{cwd: p.Cwd, dirs: p.AdditionalDirectories, chat: p.SessionID}
	for _, m := range p.McpServers {
		if len(m.Env) > 0 {
			w.mcpEnv = append(w.mcpEnv, m.Name)
		}
	}
	return w
}

// webHolds checks the paths of one call against the web roots.
func (s *Server) webHolds(w webPaths) *Error {
	if len(w.mcpEnv) > 0 {
		return refused(fmt.Sprintf("a web caller may not give an MCP server an environment (%s)", clipText(strings.Join(w.mcpEnv, ", "))))
	}
	roots := s.live.Load().webRoots
	var had *sessions.Meta
	if w.chat != "" {
		had, _ = s.opt.Store.Load(w.chat) // an unknown chat is the handler's to refuse
	}
	if w.cwd != "" && (had == nil || filepath.Clean(w.cwd) != had.Cwd) && !insideRoots(roots, w.cwd) && !s.isChatFolder(w.cwd) {
		return refused(fmt.Sprintf("cwd %q is outside the web roots (%s)", clipText(w.cwd), rootsText(roots)))
	}
	if w.listed != "" && !insideRoots(roots, w.listed) {
		return refused(fmt.Sprintf("%q is outside the web roots (%s)", clipText(w.listed), rootsText(roots)))
	}
	var kept []string
	if had != nil {
		kept = append(append(kept, had.AdditionalDirectories...), had.AdditionalFiles...)
	}
	var problems []proto.FolderProblem
	check := func(list []string, field string) {
		for i, p := range list {
			if slices.Contains(kept, p) || insideRoots(roots, p) {
				continue
			}
			problems = append(problems, proto.FolderProblem{Index: i, Path: clipText(p), Reason: "outside the web roots (" + rootsText(roots) + ")", Field: field})
		}
	}
	check(w.dirs, "")
	check(w.files, proto.FieldFiles)
	if len(problems) == 0 {
		return nil
	}
	fe := &sessions.FolderError{Count: len(w.dirs), Problems: problems}
	if len(w.dirs) == 0 {
		fe.Field, fe.Count = proto.FieldFiles, len(w.files)
	}
	return folderRefusal(fe)
}

// insideRoots reports whether p, made canonical, is a root or inside
// one. A path that cannot be resolved is inside none.
func insideRoots(roots []string, p string) bool {
	if len(roots) == 0 || !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
		return false
	}
	c, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	for _, r := range roots {
		if c == r || sessions.IsWithin(r, c) {
			return true
		}
	}
	return false
}

// isChatFolder reports whether p, made canonical, is the folder of a chat
// that exists: a web caller may start another chat there.
func (s *Server) isChatFolder(p string) bool {
	c, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	entries, err := s.opt.Store.List()
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Meta != nil && e.Meta.Cwd == c {
			return true
		}
	}
	return false
}

// rootsText names the roots in a refusal.
func rootsText(roots []string) string {
	if len(roots) == 0 {
		return "none are set: a web caller may use the chats that exist but name no folder until [web] roots is set in the config"
	}
	return "[web] roots: " + strings.Join(roots, ", ")
}

// webAnswer lets a web caller answer a permission request only with an
// option that grants nothing lasting.
func (s *Server) webAnswer(raw json.RawMessage) *Error {
	var p proto.AnswerPermissionParams
	if json.Unmarshal(raw, &p) != nil || p.OptionID == "" {
		return nil // the handler refuses a bad shape; "" cancels
	}
	perm := s.opt.Mux.State(p.ID).Permission
	if perm == nil {
		return nil // the handler says there is none
	}
	for _, o := range perm.Options {
		if o.ID == p.OptionID && o.Kind != string(sdk.PermissionOptionKindAllowOnce) && o.Kind != string(sdk.PermissionOptionKindRejectOnce) {
			return refused(fmt.Sprintf("a web caller answers allow once or reject once, not %q (%s)", clipText(o.Kind), clipText(o.Name)))
		}
	}
	return nil
}

// webRootsOf are cfg's [web] roots a web caller may name folders and
// files in: each made canonical, those that do not exist or are not
// folders dropped, and so are `/`, home (the user's $HOME) and every
// folder that holds home, which would give a web caller all of the user's
// files. Each dropped root is named in warnings.
func webRootsOf(cfg config.WebConfig, home string) (roots, warnings []string) {
	if h, err := filepath.EvalSymlinks(home); err == nil {
		home = h
	}
	for _, r := range cfg.Roots {
		c, err := filepath.EvalSymlinks(r)
		if err == nil && !isDir(c) {
			err = fmt.Errorf("not a folder")
		}
		switch {
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("[web] roots: %q dropped: %v", r, err))
		case c == "/" || home != "" && (c == home || sessions.IsWithin(c, home)):
			warnings = append(warnings, fmt.Sprintf("[web] roots: %q dropped: a root may not be /, $HOME or a folder that holds $HOME (it would give a web caller all of your files)", r))
		case !slices.Contains(roots, c):
			roots = append(roots, c)
		}
	}
	return roots, warnings
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
