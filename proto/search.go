package proto

// MethodSearch ({words, maxPerChat?, maxHits?} → SearchResult) finds the
// server's chats whose name, title, folders, conversation (an ACP chat's
// transcript, a harness's session log) or terminal (a pty chat's screen and
// scrollback) hold every word, each hit with an excerpt around it.
const MethodSearch = "_acpmux/search"

// Bounds of a search, from the wire.
const (
	// MaxSearchWords is the most words a search takes.
	MaxSearchWords = 16
	// MaxSearchWordBytes is the longest word a search takes.
	MaxSearchWordBytes = 256
	// DefaultSearchPerChat and MaxSearchPerChat bound the hits listed per
	// chat (the rest are counted in SearchChat.More).
	DefaultSearchPerChat = 5
	MaxSearchPerChat     = 100
	// DefaultSearchHits and MaxSearchHits bound the hits listed in all:
	// the search stops there (SearchResult.Cut).
	DefaultSearchHits = 200
	MaxSearchHits     = 2000
)

// SearchParams are the params of MethodSearch. A word with an upper-case
// letter matches as written; any other ignores case. Every word must be in
// the same line of text (a name, a folder, a line of a message or of a
// screen) for the line to be a hit.
type SearchParams struct {
	Words []string `json:"words"`
	// MaxPerChat and MaxHits bound the hits listed (0: the defaults).
	MaxPerChat int `json:"maxPerChat,omitempty"`
	MaxHits    int `json:"maxHits,omitempty"`
}

// SearchWhere says where in a chat a hit was found.
type SearchWhere string

// The places a hit is found in.
const (
	// SearchName is the chat's name.
	SearchName SearchWhere = "name"
	// SearchTitle is the title its agent gave it.
	SearchTitle SearchWhere = "title"
	// SearchFolder is its cwd, an additional folder or an additional file.
	SearchFolder SearchWhere = "folder"
	// SearchConversation is the ACP transcript the server holds.
	SearchConversation SearchWhere = "conversation"
	// SearchLog is the harness's own session log on disk (Claude Code's,
	// Codex's).
	SearchLog SearchWhere = "log"
	// SearchScreen is a terminal chat's screen and scrollback.
	SearchScreen SearchWhere = "screen"
)

// SearchHit is one line that holds every word.
type SearchHit struct {
	Where SearchWhere `json:"where"`
	// Excerpt is the text around the match, on one line, with no escape,
	// control or bidirectional character; "…" marks a cut end.
	Excerpt string `json:"excerpt"`
}

// SearchChat is one chat with hits, in the order they were found: its
// name, title and folders first, then its conversation, log and screen.
type SearchChat struct {
	ID string `json:"id"`
	// Host is the host the chat is on ("" for this machine); the server
	// leaves it empty, its client sets it.
	Host    string      `json:"host,omitempty"`
	Name    string      `json:"name"`
	Title   string      `json:"title,omitempty"`
	Harness string      `json:"harness,omitempty"`
	Hits    []SearchHit `json:"hits"`
	// More counts the chat's hits past maxPerChat, not listed.
	More int `json:"more,omitempty"`
}

// SearchResult is the answer to MethodSearch.
type SearchResult struct {
	Chats []SearchChat `json:"chats"`
	// Hits is how many hits are listed in Chats.
	Hits int `json:"hits"`
	// Cut is set when the search stopped at maxHits: chats after were not
	// searched.
	Cut bool `json:"cut,omitempty"`
	// Screens is set when live terminals and ACP transcripts were
	// searched: a server answered (a search of the chat files alone has
	// only the logs on disk).
	Screens bool `json:"screens"`
	// Notes say what could not be searched whole (a log too big, a log
	// that could not be read, a host that did not answer).
	Notes []string `json:"notes,omitempty"`
}
