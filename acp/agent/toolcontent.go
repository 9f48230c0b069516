package agent

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is where what an agent's tool calls produced (ACP's
// ToolCallContent: a text, a diff, a terminal), the slash commands it
// offers (available_commands_update) and the files a prompt links
// (resource_link) enter: each is cleaned and bounded here, once, for the
// transcript, a permission card and the chat's state alike, so no view
// has to.

// maxTerminalID bounds a terminal id kept (an agent's to choose).
const maxTerminalID = 256

// maxCommandText bounds a command's name, description and hint.
const maxCommandText = 1024

// maxLinkText bounds a link's URI and name.
const maxLinkText = 4096

// CleanText is plaintext.Clean for a text a view lays out over several
// lines (a diff, a tool's output, a message): escapes and controls go but
// newline and tab, and so do bidirectional controls, which would make a
// line read in another order than it runs.
func CleanText(s string) string {
	s = plaintext.Clean(s)
	if !strings.ContainsFunc(s, plaintext.IsBidi) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if plaintext.IsBidi(r) {
			return -1
		}
		return r
	}, s)
}

// cleanLine is CleanText on one line: newline and tab become spaces.
func cleanLine(s string) string {
	return plaintext.Line(CleanText(s))
}

// cutUTF8 is s cut to at most n bytes, on a rune's boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Bounds on all the texts of one content list together, beside each
// text's (proto.MaxToolContentText). A tool call's content travels whole
// in an entry of the stream, whose client may fall only 4 MiB behind; a
// permission request's travels in the chat's state, to every drawing
// client at every change (a remote one at a few KiB a second), and a card
// shows the start of a diff, not a megabyte of it.
const (
	maxToolContentTotal  = 2 << 20
	maxPermissionContent = 64 << 10
)

// textBudget is what is left of a content list's bound.
type textBudget struct{ left int }

// text is s cut to proto.MaxToolContentText bytes and to what is left of
// the budget, less reserve (kept for a text to come), then cleaned, and
// whether it was cut. It is cut first, so a 10 MB text costs no more to
// clean than the bound.
func (b *textBudget) text(s string, reserve int) (string, bool) {
	n := min(proto.MaxToolContentText, b.left-reserve)
	kept := cutUTF8(s, max(n, 0))
	b.left -= len(kept)
	return CleanText(kept), len(kept) < len(s)
}

// ToolContents is what a tool call produced as the entries keep it: each
// text cut to proto.MaxToolContentText, and all of them together to 2 MiB
// (Size then counts the bytes the agent sent), and cleaned, a diff's path
// and a terminal's id one clean line, at most proto.MaxToolContents. A
// content block that is no text (an image, a resource) is kept as the line
// ContentText makes of it. It is nil for nil (an update that does not
// change the call's content) and empty, not nil, for a list that keeps
// none.
func ToolContents(in []acp.ToolCallContent) []proto.ToolContent {
	return toolContents(in, maxToolContentTotal)
}

// PermissionContent is ToolContents for what a permission request's tool
// call will do, its texts bounded to 64 KiB together.
func PermissionContent(in []acp.ToolCallContent) []proto.ToolContent {
	return toolContents(in, maxPermissionContent)
}

// toolContents is ToolContents with total bytes of text in all.
func toolContents(in []acp.ToolCallContent, total int) []proto.ToolContent {
	if in == nil {
		return nil
	}
	budget := &textBudget{left: total}
	out := make([]proto.ToolContent, 0, min(len(in), proto.MaxToolContents))
	for _, c := range in {
		if len(out) == proto.MaxToolContents {
			break
		}
		var tc proto.ToolContent
		cut := false
		switch {
		case c.Content != nil:
			raw := ContentText(c.Content.Content)
			tc = proto.ToolContent{Type: proto.ToolContentText}
			tc.Text, cut = budget.text(raw, 0)
			if cut {
				tc.Size = int64(len(raw))
			}
		case c.Diff != nil:
			tc = proto.ToolContent{Type: proto.ToolContentDiff, Path: cutUTF8(cleanLine(c.Diff.Path), maxPathBytes)}
			var newCut, oldCut bool
			// The old text keeps its share of the budget: a diff needs
			// both sides.
			reserve := 0
			if c.Diff.OldText != nil {
				reserve = min(len(*c.Diff.OldText), proto.MaxToolContentText, budget.left/2)
			}
			tc.NewText, newCut = budget.text(c.Diff.NewText, reserve)
			size := int64(len(c.Diff.NewText))
			if c.Diff.OldText != nil {
				var old string
				old, oldCut = budget.text(*c.Diff.OldText, 0)
				tc.OldText = &old
				size += int64(len(*c.Diff.OldText))
			}
			if cut = newCut || oldCut; cut {
				tc.Size = size
			}
		case c.Terminal != nil:
			tc = proto.ToolContent{Type: proto.ToolContentTerminal, TerminalID: cutUTF8(cleanLine(c.Terminal.TerminalId), maxTerminalID)}
		default:
			continue
		}
		out = append(out, tc)
	}
	return out
}

// terminalLookBack is how many entries back TerminalOutput looks for the
// tool calls that show a terminal: a terminal's calls are of the turn that
// made it.
const terminalLookBack = 256

// TerminalOutput keeps output, a terminal's output as the client that runs
// it last answered terminal/output (cleaned, and cut to
// proto.MaxToolContentText with its size), in the terminal content of each
// recent tool call that shows terminalID, and returns the last such call's
// entry as the stream tells it (its id and its content), nil when no call
// shows the terminal or the output is what it shows already.
func (t *Transcript) TerminalOutput(terminalID, output string) *proto.Entry {
	budget := &textBudget{left: proto.MaxToolContentText}
	text, cut := budget.text(output, 0)
	var changed *proto.Entry
	for i := t.count() - 1; i >= max(t.count()-terminalLookBack, 0); i-- {
		e := t.entry(i)
		if e.Kind != proto.EntryTool {
			continue
		}
		for j := range e.Content {
			c := &e.Content[j]
			if c.Type != proto.ToolContentTerminal || c.TerminalID != terminalID || c.Text == text {
				continue
			}
			c.Text, c.Size = text, 0
			if cut {
				c.Size = int64(len(output))
			}
			e.At = time.Now()
			t.changed(i)
			if changed == nil {
				changed = &proto.Entry{Kind: proto.EntryTool, ToolCallID: e.ToolCallID, Content: slices.Clone(e.Content), At: e.At}
			}
		}
	}
	return changed
}

// toolKinds are the kinds ACP gives a tool call.
var toolKinds = []string{
	string(acp.ToolKindRead), string(acp.ToolKindEdit), string(acp.ToolKindDelete), string(acp.ToolKindMove),
	string(acp.ToolKindSearch), string(acp.ToolKindExecute), string(acp.ToolKindThink), string(acp.ToolKindFetch),
	string(acp.ToolKindSwitchMode), string(acp.ToolKindOther),
}

// ToolKind is a tool call's kind when it is one ACP defines, else "".
func ToolKind(k acp.ToolKind) string {
	return known(string(k), toolKinds...)
}

// Commands are the slash commands an agent offers as a chat's state keeps
// them: each name one clean line without spaces (a name that is empty or
// held a space, a control or an escape is dropped: the user types it, so
// it must be what the agent would read), its description and its input's
// hint one clean line each, at most proto.MaxCommands, a name listed once.
// It is nil when none is kept.
func Commands(in []acp.AvailableCommand) []proto.Command {
	var out []proto.Command
	for _, c := range in {
		if len(out) == proto.MaxCommands {
			break
		}
		name := strings.TrimPrefix(c.Name, "/")
		if name == "" || len(name) > maxCommandText || cleanLine(name) != name || strings.ContainsFunc(name, isSpace) ||
			slices.ContainsFunc(out, func(o proto.Command) bool { return o.Name == name }) {
			continue
		}
		cmd := proto.Command{Name: name, Description: cutUTF8(strings.TrimSpace(cleanLine(c.Description)), maxCommandText)}
		if c.Input != nil && c.Input.Unstructured != nil {
			cmd.Hint = cutUTF8(strings.TrimSpace(cleanLine(c.Input.Unstructured.Hint)), maxCommandText)
		}
		out = append(out, cmd)
	}
	return out
}

// isSpace reports whether r is a space of any kind (a command's name has
// none: what follows the first is its input).
func isSpace(r rune) bool {
	return strings.ContainsRune(" \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff", r) || r >= 0x2000 && r <= 0x200b
}

// CheckLinks checks the files a prompt links, where they enter (the
// server's prompt call, the door's resource_link blocks): at most
// proto.MaxPromptLinks, each a file:// URI of an absolute path with no
// host, and a name that is one clean line, not empty; both within
// maxLinkText bytes. The error names the first bad link and why.
func CheckLinks(links []proto.Link) error {
	if len(links) > proto.MaxPromptLinks {
		return fmt.Errorf("%d links: a prompt carries at most %d", len(links), proto.MaxPromptLinks)
	}
	for i, l := range links {
		if err := checkLink(l); err != nil {
			return fmt.Errorf("links[%d]: %w", i, err)
		}
	}
	return nil
}

func checkLink(l proto.Link) error {
	if len(l.URI) > maxLinkText || len(l.Name) > maxLinkText {
		return fmt.Errorf("longer than %d bytes", maxLinkText)
	}
	if l.Name == "" || strings.TrimSpace(l.Name) == "" {
		return fmt.Errorf("no name")
	}
	if cleanLine(l.Name) != l.Name {
		return fmt.Errorf("name %q holds a control character or an escape", l.Name)
	}
	if cleanLine(l.URI) != l.URI {
		return fmt.Errorf("uri %q holds a control character or an escape", l.URI)
	}
	u, err := url.Parse(l.URI)
	switch {
	case err != nil:
		return fmt.Errorf("uri %q does not parse: %w", l.URI, err)
	case u.Scheme != "file":
		return fmt.Errorf("uri %q is not a file:// URI", l.URI)
	case u.Host != "" && u.Host != "localhost", u.Opaque != "", u.User != nil:
		return fmt.Errorf("uri %q names a host: a file:// URI of this machine has none", l.URI)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("uri %q has a query or a fragment", l.URI)
	case !filepath.IsAbs(u.Path) || strings.ContainsRune(u.Path, 0):
		return fmt.Errorf("uri %q is not of an absolute path", l.URI)
	}
	return nil
}

// LinkBlocks are the resource_link blocks of a prompt's links.
func LinkBlocks(links []proto.Link) []acp.ContentBlock {
	out := make([]acp.ContentBlock, len(links))
	for i, l := range links {
		out[i] = acp.ResourceLinkBlock(l.Name, l.URI)
	}
	return out
}
