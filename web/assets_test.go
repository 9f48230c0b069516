package web

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// TestPageScriptsBuildNodesOnly reads every script of the page as it is
// embedded: none turns a string into markup or code (what a chat, an
// agent or a host sent goes in as text nodes), and the markdown renderer
// and the tool cards make no element that loads, runs or follows
// anything (a link is shown as text, an image as its alt text).
func TestPageScriptsBuildNodesOnly(t *testing.T) {
	markup := regexp.MustCompile(`\b(innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|DOMParser|document\.write|eval\s*\(|new\s+Function\b|setAttribute\(\s*["'](href|src|on\w+|style)["'])`)
	// h("a", …), createElement("img"), and the like.
	loaders := regexp.MustCompile(`(\bh|createElement)\(\s*["'](a|img|iframe|script|object|embed|link|style|form|svg|video|audio|source)["']`)
	scripts, err := fs.Glob(embedded, "assets/*.js")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts embedded (%v)", err)
	}
	seen := map[string]bool{}
	for _, name := range scripts {
		b, err := embedded.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		seen[strings.TrimPrefix(name, "assets/")] = true
		for i, line := range strings.Split(src, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if m := markup.FindString(line); m != "" {
				t.Errorf("%s:%d uses %s: %s", name, i+1, m, strings.TrimSpace(line))
			}
			if name == "assets/markdown.js" || name == "assets/toolcard.js" || name == "assets/transcript.js" {
				if m := loaders.FindString(line); m != "" {
					t.Errorf("%s:%d makes an element that loads or follows: %s", name, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
	for _, want := range []string{"markdown.js", "toolcard.js", "transcript.js"} {
		if !seen[want] {
			t.Errorf("%s is not embedded", want)
		}
	}
}
