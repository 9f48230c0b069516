package tui

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Tests of the TUI over several hosts: the sidebar's headers, the pane of
// a chat whose link is down, and the new-chat dialog's host. The mux is
// fakeRouter: the local fake and a second fake with its own chat store as
// host "box", routed as client.Router routes (ids "box:ID").

type fakeRouter struct {
	*fakeMux // the local host
	remote   *fakeMux
	hosts    []proto.HostStatus
	changed  chan struct{} // closed: the model waits on nothing
	// unreached is set while box has never answered: its chats are not
	// known (a link that dropped keeps them listed, as the Router does).
	unreached bool
	made      []string // "create HOST HARNESS", "new HOST HARNESS", "validate HOST"
}

func newFakeRouter(r *rig) *fakeRouter {
	t := r.t
	store, err := sessions.OpenStore(filepath.Join(r.root, "box-agent"))
	if err != nil {
		t.Fatal(err)
	}
	remote := newFakeMux(store)
	remote.changes, remote.notices = nil, nil
	ch := make(chan struct{})
	close(ch)
	return &fakeRouter{fakeMux: r.fake, remote: remote, changed: ch,
		hosts: []proto.HostStatus{{Name: "local"}, {Name: "box", Remote: true}}}
}

func (f *fakeRouter) Hosts() []proto.HostStatus     { return slices.Clone(f.hosts) }
func (f *fakeRouter) HostsChanged() <-chan struct{} { return f.changed }

// on is the fake of a chat id's host and the id there.
func (f *fakeRouter) on(id string) (*fakeMux, string) {
	if h, raw, ok := strings.Cut(id, hostSep); ok && h == "box" {
		return f.remote, raw
	}
	return f.fakeMux, id
}

func (f *fakeRouter) boxDown() string { return f.hosts[1].Down }

func (f *fakeRouter) List() ([]sessions.Entry, error) {
	out, err := f.fakeMux.List()
	if err != nil || f.unreached {
		return out, err
	}
	list, err := f.remote.List()
	if err != nil {
		return nil, err
	}
	for _, e := range list {
		out = append(out, boxEntry(e))
	}
	return out, nil
}

func boxEntry(e sessions.Entry) sessions.Entry {
	e.ID = "box" + hostSep + e.ID
	if e.Meta != nil {
		m := *e.Meta
		m.ID = e.ID
		if m.Parent != "" {
			m.Parent = "box" + hostSep + m.Parent
		}
		e.Meta = &m
	}
	return e
}

func (f *fakeRouter) Chat(id string) (sessions.Entry, error) {
	mux, raw := f.on(id)
	e, err := mux.Chat(raw)
	if err == nil && mux == f.remote {
		e = boxEntry(e)
	}
	return e, err
}

func (f *fakeRouter) State(id string) proto.State    { mux, raw := f.on(id); return mux.State(raw) }
func (f *fakeRouter) Render(id string, s int) string { mux, raw := f.on(id); return mux.Render(raw, s) }
func (f *fakeRouter) Terminal(id string) proto.Terminal {
	mux, raw := f.on(id)
	return mux.Terminal(raw)
}

func (f *fakeRouter) Write(id string, p []byte) error {
	mux, raw := f.on(id)
	if mux == f.remote && f.boxDown() != "" {
		return errors.New("the link to host box is down")
	}
	return mux.Write(raw, p)
}

func (f *fakeRouter) CreateAndStartOn(host string, n sessions.NewChat, cols, rows int) (*sessions.Meta, error) {
	f.made = append(f.made, "create "+host+" "+n.Harness)
	m, err := f.remote.CreateAndStart(n, cols, rows)
	if m != nil {
		m.ID = "box" + hostSep + m.ID
	}
	return m, err
}

func (f *fakeRouter) CreateOn(host string, n sessions.NewChat) (*sessions.Meta, error) {
	f.made = append(f.made, "new "+host+" "+n.Harness)
	return nil, errors.New("not in this test")
}

func (f *fakeRouter) ValidateOn(host, cwd string, dirs, files []string) ([]string, []string, error) {
	f.made = append(f.made, "validate "+host)
	return f.remote.Validate(cwd, dirs, files)
}

// ListDirectory lists a folder as box's server would (its disk is this
// one here), recording the call.
func (f *fakeRouter) ListDirectory(host, path string) (proto.ListDirectoryResult, error) {
	f.made = append(f.made, "listdir "+host+" "+path)
	des, err := os.ReadDir(path)
	if err != nil {
		return proto.ListDirectoryResult{}, err
	}
	res := proto.ListDirectoryResult{Path: path, Entries: []proto.DirEntry{}}
	for _, de := range des {
		res.Entries = append(res.Entries, proto.DirEntry{Name: de.Name(), Dir: de.IsDir()})
	}
	return res, nil
}

// openRouted opens the model over a fakeRouter with local chats and the
// remote's, and tells it the hosts.
func openRouted(t *testing.T, local []string, remote []string) (*rig, *fakeRouter) {
	r := newRig(t, nil)
	f := newFakeRouter(r)
	for _, name := range local {
		r.create(sessions.NewChat{Name: name})
	}
	for _, name := range remote {
		if _, err := f.remote.store.Create(sessions.NewChat{Name: name, Harness: "shell"}); err != nil {
			t.Fatal(err)
		}
	}
	r.open(Options{Mux: f})
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	return r, f
}

// sidebarText is the sidebar's lines as plain text.
func sidebarText(r *rig) []string {
	var out []string
	for _, l := range r.m.sidebar.View() {
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}

func TestSidebarGroupsChatsUnderTheirHosts(t *testing.T) {
	r, _ := openRouted(t, []string{"alpha", "beta"}, []string{"far one"})
	lines := sidebarText(r)
	at := func(sub string) int {
		for i, l := range lines {
			if strings.Contains(l, sub) {
				return i
			}
		}
		t.Fatalf("no line with %q in the sidebar:\n%s", sub, strings.Join(lines, "\n"))
		return -1
	}
	local, alpha, beta, box, far := at("▾ local"), at("alpha"), at("beta"), at("▾ box"), at("far one")
	if !(local < min(alpha, beta) && max(alpha, beta) < box && box < far) {
		t.Fatalf("the chats are not grouped local first, then box:\n%s", strings.Join(lines, "\n"))
	}
	// The selection moves from the last local chat to the first remote
	// one: a header is never selected.
	r.m.sidebar.Select(r.order()[1])
	r.m.sidebar.Move(1)
	if id := r.selectedID(); !strings.HasPrefix(id, "box:") {
		t.Fatalf("moved down from the last local chat onto %q, want box's chat", id)
	}
	// A click on a header selects nothing.
	if _, ok := r.m.sidebar.RowAt(box); ok {
		t.Fatalf("line %d (box's header) is taken for a chat", box)
	}
	if i, ok := r.m.sidebar.RowAt(far); !ok || r.m.sidebar.all[r.m.sidebar.rows[i]].entry.Name() != "far one" {
		t.Fatalf("line %d is not box's chat (%d, %v)", far, i, ok)
	}
}

func TestDownHostShowsWhyAndItsChatsComeBack(t *testing.T) {
	r, f := openRouted(t, []string{"alpha"}, []string{"far one"})
	f.hosts[1].Down, f.unreached = "ssh to host box (box) failed: Connection refused", true
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	text := strings.Join(sidebarText(r), "\n")
	if !strings.Contains(text, "▾ box · down: ssh to host") {
		t.Fatalf("box's header does not say why it is down:\n%s", text)
	}
	if strings.Contains(text, "far one") {
		t.Fatalf("a chat of a host down is listed:\n%s", text)
	}
	f.hosts[1].Down, f.unreached = "", false
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	text = strings.Join(sidebarText(r), "\n")
	if !strings.Contains(text, "far one") || strings.Contains(text, "down:") {
		t.Fatalf("box is back but its chats are not listed:\n%s", text)
	}
}

func TestRemoteChatPaneSaysTheLinkIsDown(t *testing.T) {
	r, f := openRouted(t, []string{"alpha"}, []string{"far one"})
	var far string
	for _, id := range r.order() {
		if strings.HasPrefix(id, "box:") {
			far = id
		}
	}
	_, raw, _ := strings.Cut(far, hostSep)
	f.remote.set(raw, proto.State{Status: proto.StatusRunning}, "far screen")
	r.m.sidebar.Select(far)
	r.run(func() tea.Msg { return chatsChangedMsg{ids: []string{far}} })
	r.m.selectionChanged()
	if v := strings.Join(r.m.pane.View(), "\n"); !strings.Contains(v, "far screen") || strings.Contains(v, "link down") {
		t.Fatalf("the remote chat's pane:\n%s", v)
	}
	f.hosts[1].Down = "the link to host box is down: ssh was killed (killed); reconnecting"
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	if r.selectedID() != far {
		t.Fatalf("the selection left the remote chat for %q", r.selectedID())
	}
	v := strings.Join(r.m.pane.View(), "\n")
	if !strings.Contains(v, "link down · reconnecting… · keys are not sent · the link to host") {
		t.Fatalf("the pane does not say the link is down:\n%s", v)
	}
	f.hosts[1].Down = ""
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	if v := strings.Join(r.m.pane.View(), "\n"); strings.Contains(v, "link down") || !strings.Contains(v, "far screen") {
		t.Fatalf("the link is back but the pane says:\n%s", v)
	}
}

func TestNewChatDialogMakesTheChatOnTheHostChosen(t *testing.T) {
	r, f := openRouted(t, []string{"alpha"}, nil)
	r.key(runeKey('n'))
	d, ok := r.m.dialog.(*NewChatDialog)
	if !ok {
		t.Fatalf("n opened %T", r.m.dialog)
	}
	if v := r.m.View(); !strings.Contains(v, "host      ‹ local ›") {
		t.Fatalf("the dialog offers no host:\n%s", v)
	}
	r.key(keyOf(tea.KeyRight))
	if v := r.m.View(); !strings.Contains(v, "‹ box ›") || d.Host() != "box" {
		t.Fatalf("→ did not choose box (%q):\n%s", d.Host(), v)
	}
	// The folder picker's validator is box's now.
	dir := t.TempDir()
	if _, _, err := d.lists.Validate("", []string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(f.made, "validate box") {
		t.Fatalf("validation went elsewhere: %v", f.made)
	}
	r.key(tea.KeyMsg{Type: tea.KeyCtrlS})
	if !slices.Contains(f.made, "create box shell") {
		t.Fatalf("ctrl+s did not create on box: %v", f.made)
	}
	if id := r.selectedID(); !strings.HasPrefix(id, "box:") {
		t.Fatalf("the chat made on box is not selected (%q): %v", id, r.order())
	}
}

func TestRemoteChatPickerBrowsesItsHost(t *testing.T) {
	r, f := openRouted(t, []string{"alpha"}, []string{"far one"})
	var far string
	for _, id := range r.order() {
		if strings.HasPrefix(id, "box:") {
			far = id
		}
	}
	dir := filepath.Join(r.root, "far-project")
	if err := os.MkdirAll(filepath.Join(dir, "only-sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.m.sidebar.Select(far)
	r.m.selectionChanged()
	r.key(runeKey('a'))
	p, ok := r.m.dialog.(*FolderPicker)
	if !ok {
		t.Fatalf("a opened %T", r.m.dialog)
	}
	r.run(p.path.SetValue(dir + "/"))
	if !slices.Contains(f.made, "listdir box "+dir) {
		t.Fatalf("the picker of box's chat did not list through box: %v", f.made)
	}
	if v := r.m.View(); !strings.Contains(v, "only-sub") {
		t.Fatalf("box's listing is not shown:\n%s", v)
	}
	// A local chat's picker reads this machine's disk, as ever.
	f.made = nil
	r.key(keyOf(tea.KeyEsc))
	r.m.sidebar.Select(r.order()[0])
	r.m.selectionChanged()
	r.key(runeKey('a'))
	if p, ok := r.m.dialog.(*FolderPicker); ok {
		r.run(p.path.SetValue(dir + "/"))
	} else {
		t.Fatalf("a opened %T for the local chat", r.m.dialog)
	}
	if len(f.made) != 0 {
		t.Fatalf("a local chat's picker asked the router: %v", f.made)
	}
}

// A remote chat's review (d) is asked of the mux with its host's id, as a
// local chat's is (its host's server computes it); export (e), which
// writes on this machine, is not offered for it.
func TestRemoteChatReviewedThereNotExported(t *testing.T) {
	r, _ := openRouted(t, []string{"alpha"}, []string{"far one"})
	var far string
	for _, id := range r.order() {
		if strings.HasPrefix(id, "box:") {
			far = id
		}
	}
	r.m.sidebar.Select(far)
	r.m.selectionChanged()
	r.key(runeKey('e'))
	if r.m.dialog != nil || !strings.Contains(r.m.status, "not offered for a chat of host box") {
		t.Fatalf("e on box's chat: dialog %T, status %q", r.m.dialog, r.m.status)
	}
	r.key(runeKey('d'))
	if _, ok := r.m.dialog.(*ReviewDialog); !ok {
		t.Fatalf("d on box's chat opened %T, not the review pane", r.m.dialog)
	}
	if calls := r.fake.Calls(); !slices.Contains(calls, "review "+far) {
		t.Errorf("the review was not asked of the mux for %s: %q", far, calls)
	}
}

// TestStatusLinkDownClearsWhenTheHostIsBack: keys typed into a chat of a
// host whose link is down fail, and the status line says why, in ssh's
// words; once the host's state comes back up the status line drops that
// ("reconnected to host box"), while an error of something else stays.
func TestStatusLinkDownClearsWhenTheHostIsBack(t *testing.T) {
	r, f := openRouted(t, []string{"alpha"}, []string{"far one"})
	var far string
	for _, id := range r.order() {
		if strings.HasPrefix(id, "box:") {
			far = id
		}
	}
	footer := func() string {
		v := r.m.View()
		return v[strings.LastIndexByte(v, '\n')+1:]
	}
	down := "the link to host box is down: ssh to host box (box) failed: Timeout, server 10.1.2.3 not responding; reconnecting"
	f.hosts[1].Down = down
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	// What the input writer sends when the Router refuses the keys.
	r.m.Update(writeErrMsg{id: far, err: errors.New(down)})
	if v := footer(); !strings.Contains(v, "✗ send keys: the link to host box is down") || !strings.Contains(r.m.status, "failed: Timeout, server 10.1.2.3 not responding") {
		t.Fatalf("the status line does not say why the keys were not sent (%q):\n%s", r.m.status, v)
	}
	// Another change of the hosts, box still down: it stays.
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	if v := footer(); !strings.Contains(v, "link to host box is down") {
		t.Fatalf("the status line dropped the error while box is down:\n%s", v)
	}
	f.hosts[1].Down = ""
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	if v := footer(); strings.Contains(v, "is down") || !strings.Contains(v, "✓ reconnected to host box") {
		t.Fatalf("box is back, but the status line says:\n%s", v)
	}

	// The error came after the TUI last heard of box: it heard of box
	// down and back at once (the Router's signals coalesce). Its words
	// still say it is box's link, which is up: it is dropped.
	r.m.Update(writeErrMsg{id: far, err: errors.New("host box does not answer: connecting…")})
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	if v := footer(); strings.Contains(v, "does not answer") {
		t.Fatalf("box answers, but the status line says:\n%s", v)
	}

	// An error of something else stays when box comes back.
	r.m.fail("rename", errors.New("the name is taken"))
	f.hosts[1].Down = down
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	f.hosts[1].Down = ""
	r.run(func() tea.Msg { return hostsMsg{f.Hosts()} })
	if v := footer(); !strings.Contains(v, "✗ rename: the name is taken") {
		t.Fatalf("box came back and took another error with it:\n%s", v)
	}
}
