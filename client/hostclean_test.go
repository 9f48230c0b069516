package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/internal/rpcline"
	"github.com/acpmux/acpmux-tui/proto"
)

// hostJSONCases are JSON values a host sends and what cleanHostJSON makes
// of them.
var hostJSONCases = []struct {
	name     string
	kind     textKind
	in, want string
}{
	{"escaped OSC", plainText, `{"name":"a\u001b]0;X\u0007b"}`, `{"name":"a` + "\uFFFD" + `b"}`},
	{"OSC 52 and a clear", plainText, `{"cwd":"/x\u001b]52;c;cHduZWQ=\u0007\u001b[2J/y"}`, `{"cwd":"/x` + "\uFFFD\uFFFD" + `/y"}`},
	{"raw C1 CSI", plainText, `{"a":"x` + "\u009b" + `2Jy"}`, `{"a":"x` + "\uFFFD" + `y"}`},
	{"escaped C1 CSI, upper case", plainText, `{"a":"x\u009B2Jy"}`, `{"a":"x` + "\uFFFD" + `y"}`},
	{"raw and escaped bidi", plainText, `{"a":"` + "\u202e" + `txt\u202Egnp\u2066i\u200f\u061c"}`, `{"a":"` + strings.Repeat("\uFFFD", 1) + "txt\uFFFDgnp\uFFFDi\uFFFD\uFFFD" + `"}`},
	{"DEL and C0 short escapes", plainText, `["a\u007f","b\bc\fd\re"]`, `["a` + "\uFFFD" + `","b` + "\uFFFDc\uFFFDd\uFFFDe" + `"]`},
	{"CR LF", plainText, `{"said":"one\r\ntwo"}`, `{"said":"one\ntwo"}`},
	{"a key", plainText, `{"states":{"far1\u001b[2J":{}}}`, `{"states":{"far1` + "\uFFFD" + `":{}}}`},
	{"nested arrays and scalars", plainText, ` [ "\u0007" , 1.5e3 , true , null , {"k" : ["\u001b" ]} ] `, ` [ "` + "\uFFFD" + `" , 1.5e3 , true , null , {"k" : ["` + "\uFFFD" + `" ]} ] `},
	{"a screen patch keeps SGR", plainText,
		`{"id":"x","cursor":[1,2],"screen":{"full":"\u001b[31mred\u001b[m\u001b]52;c;x\u0007","rows":{"1":"\u001b[1;38;5;2mb\u001b[m` + "\u202e" + `"}}}`,
		`{"id":"x","cursor":[1,2],"screen":{"full":"\u001b[31mred\u001b[m","rows":{"1":"\u001b[1;38;5;2mb\u001b[m"}}}`},
	{"a state's screen keeps SGR, its reason does not", plainText,
		`{"states":{"far1":{"state":{"Reason":"\u001b[31mr"},"screen":{"full":"\u001b[31mr"}}}}`,
		`{"states":{"far1":{"state":{"Reason":"` + "\uFFFD" + `r"},"screen":{"full":"\u001b[31mr"}}}}`},
	{"a screen is spelled as the server writes it", plainText, `{"Screen":{"full":"\u001b[31mr"},"scr\u0065en":{"full":"\u001b[31mr"}}`,
		`{"Screen":{"full":"` + "\uFFFD" + `r"},"scr\u0065en":{"full":"` + "\uFFFD" + `r"}}`},
	{"a screen patch's other members", plainText, `{"screen":{"id":"\u001b[31m","full":"\u001b[31mr"}}`, `{"screen":{"id":"` + "\uFFFD" + `","full":"\u001b[31mr"}}`},
	{"a rendered screen", screenText, `{"text":"\u001b[31mr\u001b[2J\u001b[m"}`, `{"text":"\u001b[31mr\u001b[m"}`},
	{"escapes kept as they are", plainText, `{"a":"q\"\\\/\n\t\u00e9\ud83d\ude00"}`, `{"a":"q\"\\\/\n\t\u00e9\ud83d\ude00"}`},
}

// TestCleanHostJSON: every string a host sends loses its controls and
// bidirectional controls, a mark where each was; a screen keeps its SGR;
// the rest of the JSON is as it was.
func TestCleanHostJSON(t *testing.T) {
	for _, tc := range hostJSONCases {
		if !json.Valid([]byte(tc.in)) {
			t.Fatalf("%s: the case is not JSON: %s", tc.name, tc.in)
		}
		got := string(cleanHostJSON([]byte(tc.in), tc.kind))
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestCleanHostJSONCopiesNothingClean: a value with nothing to clean, a
// screen with its colours included, is returned as it is, not copied.
func TestCleanHostJSONCopiesNothingClean(t *testing.T) {
	for _, v := range [][]byte{screenParams(160, 45), chatList(50)} {
		if got := cleanHostJSON(v, plainText); &got[0] != &v[0] || len(got) != len(v) {
			t.Errorf("cleanHostJSON copied a clean value of %d bytes", len(v))
		}
	}
}

// FuzzCleanHostJSON: whatever valid JSON a host sends, what is left is
// JSON whose every string is clean (a screen's but for its SGR), and
// cleaning it again changes nothing.
func FuzzCleanHostJSON(f *testing.F) {
	for _, tc := range hostJSONCases {
		f.Add([]byte(tc.in), tc.kind == screenText)
	}
	f.Add(screenParams(20, 3), false)
	f.Fuzz(func(t *testing.T, in []byte, screen bool) {
		kind := plainText
		if screen {
			kind = screenText
		}
		out := cleanHostJSON(in, kind)
		if !json.Valid(in) {
			return // the reader refuses it first; not hanging is enough
		}
		if !json.Valid(out) {
			t.Fatalf("cleanHostJSON(%q) = %q is not JSON", in, out)
		}
		if again := cleanHostJSON(out, kind); !bytes.Equal(again, out) {
			t.Fatalf("cleanHostJSON is not idempotent on %q: %q then %q", in, out, again)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		checkCleanValue(t, v, kind, out)
	})
}

// checkCleanValue fails t on a string of v (decoded) that is not clean for
// its place (memberKind).
func checkCleanValue(t *testing.T, v any, kind textKind, out []byte) {
	t.Helper()
	switch v := v.(type) {
	case string:
		clean := plaintext.Foreign(v)
		if kind == screenText {
			clean = plaintext.ForeignScreen(v)
		}
		if clean != v {
			t.Fatalf("%q holds %q, which is not clean", out, v)
		}
	case []any:
		if kind == screenPatch {
			kind = plainText
		}
		for _, e := range v {
			checkCleanValue(t, e, kind, out)
		}
	case map[string]any:
		for k, e := range v {
			checkCleanValue(t, k, plainText, out)
			key, _ := json.Marshal(k)
			checkCleanValue(t, e, memberKind(kind, key), out)
		}
	}
}

// screenParams is a NotifyScreen's params as a server sends them: a whole
// screen of cols x rows, each line coloured as a coding agent's are, and
// the screen's rows again as a patch.
func screenParams(cols, rows int) []byte {
	lines := make([]string, rows)
	patch := map[int]string{}
	for i := range lines {
		var b strings.Builder
		b.WriteString("\x1b[38;5;245m│\x1b[m ")
		for b.Len() < cols {
			fmt.Fprintf(&b, "\x1b[1;32m✓\x1b[m step %d ran \x1b[2mgo test ./...\x1b[m ", i)
		}
		lines[i] = b.String()
		patch[i] = lines[i]
	}
	full := strings.Join(lines, "\n")
	line := proto.EncodeScreenUpdate(proto.ScreenUpdate{ID: "k3x9q2", Cursor: [2]int{3, 4}, Screen: proto.ScreenPatch{Full: &full, Rows: patch}})
	m, ok := rpcline.Split(line[:len(line)-1])
	if !ok {
		panic("screen line")
	}
	return m.Params
}

// chatList is a list answer of n chats, as a host's server writes it.
func chatList(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"chats":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"chat%04d","name":"fix the build %d","harness":"claude","cwd":"/home/me/src/project-%d","additionalDirectories":["/home/me/src/lib","/home/me/notes"],"additionalFiles":[],"parent":"","origin":"","agentSessionId":"0b9d7c4e-5f7a-4c1e-9a0b-7e2d1c3b4a5f","status":"waiting","foldersVia":"argv","filesVia":"none","created":"2026-01-02T03:04:05Z"}`, i, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// BenchmarkCleanHostJSON is the cleaning of what a host sends most: a
// whole coloured 160x45 screen (and its rows) in a NotifyScreen, a list of
// 1,000 chats, and the same screen with one hostile row; DecodeScreen is
// the decoding of that screen, which every NotifyScreen costs anyway.
func BenchmarkCleanHostJSON(b *testing.B) {
	screen := screenParams(160, 45)
	dirty := bytes.Replace(screen, []byte(`step 3 ran`), []byte(`step 3\u001b]52;c;cHduZWQ=\u0007 ran`), 1)
	list := chatList(1000)
	for _, bc := range []struct {
		name string
		v    []byte
	}{{"Screen", screen}, {"List1000", list}, {"ScreenOneHostileRow", dirty}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.v)))
			b.ReportAllocs()
			for b.Loop() {
				cleanHostJSON(bc.v, plainText)
			}
		})
	}
	b.Run("DecodeScreen", func(b *testing.B) {
		b.SetBytes(int64(len(screen)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := proto.DecodeScreenUpdate(screen); err != nil {
				b.Fatal(err)
			}
		}
	})
}
