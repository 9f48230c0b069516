package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

func DescribeAuth(m acp.AuthMethod) string {
	desc := func(name string, d *string) string {
		if d != nil && *d != "" {
			return name + " (" + *d + ")"
		}
		return name
	}
	switch {
	case m.Agent != nil:
		return desc(m.Agent.Name, m.Agent.Description)
	case m.Terminal != nil:
		return desc(m.Terminal.Name, m.Terminal.Description)
	case m.EnvVar != nil:
		var vars []string
		for _, v := range m.EnvVar.Vars {
			vars = append(vars, v.Name)
		}
		return desc(m.EnvVar.Name, m.EnvVar.Description) + ": set " + strings.Join(vars, ", ")
	}
	return "an unknown method"
}

// maxAgentName bounds the agent's name and version as shown: it is the
// agent's to choose, and a header has one line.
const maxAgentName = 120

func AgentName(info *acp.Implementation) string {
	if info == nil {
		return ""
	}
	name := info.Name
	if info.Title != nil && *info.Title != "" {
		name = *info.Title
	}
	name = plaintext.Line(name + " " + info.Version)
	if len(name) > maxAgentName {
		name = strings.ToValidUTF8(name[:maxAgentName], "") + "…"
	}
	return name
}

// wireTap shows every message written to an agent to see, a line at a time.
type wireTap struct {
	w   io.Writer
	see func([]byte)
	buf []byte
	mu  sync.Mutex
}

func (t *wireTap) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.see(append([]byte(nil), t.buf[:i]...))
		t.buf = t.buf[i+1:]
	}
	t.mu.Unlock()
	return t.w.Write(p)
}

// agentInput is an agent's stdin, noting a failed write: the agent has
// exited or stopped reading.
type agentInput struct {
	w      io.Writer
	failed *atomic.Bool
}

func (a *agentInput) Write(b []byte) (int, error) {
	n, err := a.w.Write(b)
	if err != nil {
		a.failed.Store(true)
	}
	return n, err
}

// FolderNote is the context note that gives an agent without the
// additionalDirectories capability the chat's folders, at the head of its
// first prompt.
func FolderNote(folders []string) string {
	var b strings.Builder
	b.WriteString("[acpmux-tui] Besides the working folder, this chat may read and edit files in these folders:\n")
	for _, f := range folders {
		b.WriteString("- " + f + "\n")
	}
	return b.String()
}

// Locations are the files a tool call names (ACP's locations) as the
// entries keep them: each path cleaned to one line, a line that is not a
// line number (below 0) left out, a location with no path or too long a
// one dropped, at most MaxEntryPaths. It is nil for nil (the update does
// not change them) and empty, not nil, for a list that keeps none.
func Locations(locs []acp.ToolCallLocation) []proto.Location {
	if locs == nil {
		return nil
	}
	out := make([]proto.Location, 0, min(len(locs), MaxEntryPaths))
	for _, l := range locs {
		if len(out) == MaxEntryPaths {
			break
		}
		p := plaintext.Line(l.Path)
		if p == "" || len(p) > maxPathBytes {
			continue
		}
		loc := proto.Location{Path: p, Line: l.Line}
		if l.Line != nil && *l.Line < 0 {
			loc.Line = nil
		}
		out = append(out, loc)
	}
	return out
}

func ContentText(b acp.ContentBlock) string {
	switch {
	case b.Text != nil:
		return b.Text.Text
	case b.ResourceLink != nil:
		return "[" + b.ResourceLink.Name + "](" + b.ResourceLink.Uri + ")"
	case b.Image != nil:
		return "[image]"
	case b.Audio != nil:
		return "[audio]"
	case b.Resource != nil:
		return "[resource]"
	}
	return ""
}

// UnstableOptions are session/fork's options (the unstable schema's type)
// as the stable type; one that does not convert is left out.
func UnstableOptions(in []acp.UnstableSessionConfigOption) []acp.SessionConfigOption {
	var out []acp.SessionConfigOption
	for _, o := range in {
		b, err := json.Marshal(o)
		if err != nil {
			continue
		}
		var s acp.SessionConfigOption
		if json.Unmarshal(b, &s) == nil && s.Validate() == nil {
			out = append(out, s)
		}
	}
	return out
}
