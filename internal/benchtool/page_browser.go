package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/testharness/browser"
	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/proto"
)

// The page rows of issue 42: the web door's page in a real headless
// Chromium, driven over the DevTools protocol (chromedp), beside the TUI
// and tmux. Every time of the page is read in the page, from
// performance.now() (whose origin is the navigation's start) and the
// key events' own time stamps, by observers the bench adds to the page
// (a MutationObserver), so no figure is bound to how often this process
// asks. The page is found by its stable hooks only: data-chat-id on each
// chat row, data-role="terminal" on a terminal chat's screen.
//
//	page-1000   page_list.go: the first paint of N chats, beside the TUI's first frame
//	page-keys   page_keys.go: a key's echo in a terminal chat, beside the server's client and tmux
//	page-flood  page_flood.go: the flood in a terminal chat, beside tmux

// runPage runs the page-* subcommands.
func runPage(cmd string, rest []string) error {
	switch {
	case cmd == "page-1000" && len(rest) == 4:
		n, runs, err := countAnd(rest[2], rest[3], positive)
		if err != nil {
			return err
		}
		return page1000(rest[0], rest[1], n, runs)
	case cmd == "page-keys" && len(rest) == 6:
		n, gap, err := countAnd(rest[4], rest[5], gapMillis)
		if err != nil {
			return err
		}
		return pageKeys(rest[0], rest[1], rest[2], rest[3], n, gap)
	case cmd == "page-flood" && len(rest) == 6:
		runs, err := positive(rest[5])
		if err != nil {
			return err
		}
		return pageFlood(rest[0], rest[1], rest[2], rest[3], rest[4], runs)
	default:
		return fmt.Errorf("bad command line %q\n%s", append([]string{cmd}, rest...), usage)
	}
}

// pageWindow is the browser's window and first viewport, in CSS pixels;
// the terminal rows then widen or narrow it until the terminal is 160x45.
var pageWindow = struct{ Width, Height int }{1600, 1000}

// pageWait bounds one step of setting a page up (a load, a row showing).
const pageWait = 60 * time.Second

// pageBrowser is one headless Chromium (Debian's, as the browser tests
// run it) and its first tab.
type pageBrowser struct {
	tab         context.Context
	cancelTab   context.CancelFunc
	cancelAlloc context.CancelFunc
	output      *lockedbuf.Buffer // what Chromium printed, for an error
	closeOnce   sync.Once
}

// startBrowser starts Chromium with the flags that work as root in a
// container (no sandbox, headless=new, no GPU, no /dev/shm) and opens its
// first tab at the window's size.
func startBrowser() (*pageBrowser, error) {
	path, err := browser.Find()
	if err != nil {
		return nil, fmt.Errorf("%w (apt-get install chromium)", err)
	}
	b := &pageBrowser{output: new(lockedbuf.Buffer)}
	opts := browser.AllocatorOptions(path, pageWindow.Width, pageWindow.Height, b.output)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b.tab, b.cancelTab = chromedp.NewContext(allocCtx)
	b.cancelAlloc = cancelAlloc
	if err := firstDo(b.tab, chromedp.EmulateViewport(int64(pageWindow.Width), int64(pageWindow.Height))); err != nil {
		b.close()
		return nil, fmt.Errorf("start chromium (%s): %w\n%s", path, err, b.output.String())
	}
	return b, nil
}

// close closes the tab and ends the browser (chromedp kills what is left
// of it and removes its profile folder). It runs once.
func (b *pageBrowser) close() {
	b.closeOnce.Do(func() {
		b.cancelTab()
		b.cancelAlloc()
	})
}

// newTab opens another tab of the browser at the window's size; cancel
// closes it.
func (b *pageBrowser) newTab() (context.Context, context.CancelFunc, error) {
	tab, cancel := chromedp.NewContext(b.tab)
	if err := firstDo(tab, chromedp.EmulateViewport(int64(pageWindow.Width), int64(pageWindow.Height))); err != nil {
		cancel()
		return nil, nil, fmt.Errorf("open a tab: %w", err)
	}
	return tab, cancel, nil
}

// firstDo runs the first action of a chromedp context, which opens its
// tab (and starts the browser, for the first tab) and binds it to that
// context: the deadline is kept here, not on the context.
func firstDo(tab context.Context, a chromedp.Action[chromedp.Void]) error {
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(tab, a) }()
	select {
	case err := <-done:
		return err
	case <-time.After(pageWait):
		return fmt.Errorf("no answer after %s", pageWait)
	}
}

// teardown is what a page row undoes at its end or on a signal: each step
// added runs once, the last added first. A second caller waits for the
// first to finish.
type teardown struct {
	mu  sync.Mutex
	fns []func()
}

func (t *teardown) add(fn func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fns = append(t.fns, fn)
}

func (t *teardown) run() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.fns) - 1; i >= 0; i-- {
		t.fns[i]()
	}
	t.fns = nil
}

// ownSignals moves the rig's signal handling to td: the server is killed
// with the browser and the rest of td on SIGINT, SIGTERM or SIGHUP (one
// handler, so the process does not end before all of it is done). The
// returned stop ends the handling.
func ownSignals(r *serverRig, td *teardown) (stop func()) {
	if r.stopSig != nil {
		r.stopSig()
		r.stopSig = nil
	}
	td.add(r.close)
	return onSignal(td.run)
}

// openPage opens the web door of r's server and a browser to look at it,
// which td closes: the page's address (with its token) and the browser.
func openPage(r *serverRig, td *teardown) (string, *pageBrowser, error) {
	url, err := webURL(r.binary, os.Environ())
	if err != nil {
		return "", nil, err
	}
	b, err := startBrowser()
	if err != nil {
		return "", nil, err
	}
	td.add(b.close)
	return url, b, nil
}

// webURL opens the web listener of the server of env on a free loopback
// port (`BIN web --json`) and returns the page's address with the token in
// its fragment.
func webURL(binary string, env []string) (string, error) {
	cmd := exec.Command(binary, "web", "--json", "--listen", "127.0.0.1:0")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s web --json: %w\n%s", binary, err, stderr.Bytes())
	}
	var w struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(out, &w); err != nil || !strings.Contains(w.URL, "#token=") {
		return "", fmt.Errorf("%s web --json printed %q (%v), want a url with the token", binary, out, err)
	}
	return w.URL, nil
}

// jsQuote is s as a JavaScript string literal.
func jsQuote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// pageEval evaluates expr in the tab (a promise is awaited) and decodes
// its value into T, within wait.
func pageEval[T any](tab context.Context, wait time.Duration, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(tab, wait)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// pageWaitTrue waits until expr is true in the tab, looking again on a
// timer that backs off from 5 ms to 100 ms; what names it in the error.
// It is for setting up only: no figure is timed by it.
func pageWaitTrue(tab context.Context, what, expr string) error {
	deadline := time.Now().Add(pageWait)
	backoff := 5 * time.Millisecond
	for {
		ok, err := pageEval[bool](tab, pageWait, "Boolean("+expr+")")
		if err == nil && ok {
			return nil
		}
		var exc *chromedp.ExceptionError
		if errors.As(err, &exc) {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if time.Now().After(deadline) {
			text, _ := pageEval[string](tab, 5*time.Second, `document.body ? document.body.innerText.slice(0, 2000) : ""`)
			return fmt.Errorf("the page did not show %s in %s (%v); it shows:\n%s", what, pageWait, err, text)
		}
		time.Sleep(backoff)
		backoff = min(2*backoff, 100*time.Millisecond)
	}
}

// pageRow is the CSS selector of a chat's row.
func pageRow(id string) string { return fmt.Sprintf("[data-chat-id=%q]", id) }

// pageTerminal is the CSS selector of a terminal chat's screen.
const pageTerminal = `[data-role="terminal"]`

// openTerminalChat signs the tab in at url, opens chat id (a click on its
// row), waits for its screen to show ready, sizes the window until the
// screen is cols x rows (as near as it comes: what it came to is
// returned), focuses the screen and adds the key and text observers
// (termScript).
func openTerminalChat(tab context.Context, url, home, id, ready string, cols, rows int) (gotCols, gotRows int, err error) {
	ctx, cancel := context.WithTimeout(tab, pageWait)
	err = chromedp.Do(ctx, chromedp.Navigate(url))
	cancel()
	if err != nil {
		return 0, 0, fmt.Errorf("load the page: %w", err)
	}
	row := jsQuote(pageRow(id))
	if err := pageWaitTrue(tab, "the row of chat "+id, "document.querySelector("+row+")"); err != nil {
		return 0, 0, err
	}
	if _, err := pageEval[chromedp.Void](tab, pageWait, "document.querySelector("+row+").click()"); err != nil {
		return 0, 0, fmt.Errorf("open chat %s: %w", id, err)
	}
	shows := fmt.Sprintf("(document.querySelector(%s) || {textContent: ''}).textContent.includes(%s)", jsQuote(pageTerminal), jsQuote(ready))
	if err := pageWaitTrue(tab, fmt.Sprintf("%q in the terminal", ready), shows); err != nil {
		return 0, 0, err
	}
	if gotCols, gotRows, err = fitTerminal(tab, home, id, cols, rows); err != nil {
		return 0, 0, err
	}
	if _, err := pageEval[chromedp.Void](tab, pageWait, termScript); err != nil {
		return 0, 0, fmt.Errorf("add the terminal's observers: %w", err)
	}
	if _, err := pageEval[chromedp.Void](tab, pageWait, "document.querySelector("+jsQuote(pageTerminal)+").focus()"); err != nil {
		return 0, 0, fmt.Errorf("focus the terminal: %w", err)
	}
	return gotCols, gotRows, nil
}

// fitTerminal resizes the tab's viewport until the page has sized chat
// id's pty to cols x rows (the page sizes every chat's pty to what fits
// its terminal element), for at most a few tries; it returns the size the
// pty came to.
func fitTerminal(tab context.Context, home, id string, cols, rows int) (int, int, error) {
	c, r, err := settledSize(home, id)
	if err != nil {
		return 0, 0, err
	}
	for try := 0; try < 8 && (c != cols || r != rows); try++ {
		box, err := pageEval[struct{ W, H, VW, VH float64 }](tab, pageWait,
			`(() => { const e = document.querySelector(`+jsQuote(pageTerminal)+`); return {W: e.clientWidth, H: e.clientHeight, VW: innerWidth, VH: innerHeight}; })()`)
		if err != nil {
			return 0, 0, fmt.Errorf("measure the terminal: %w", err)
		}
		if c <= 0 || r <= 0 || box.W <= 0 || box.H <= 0 {
			return 0, 0, fmt.Errorf("the terminal is %gx%g px for a %dx%d pty", box.W, box.H, c, r)
		}
		// A cell is about the element's size over the pty's (a little
		// more: the padding); the next try corrects what is left.
		w := int(box.VW) + int(math.Round(float64(cols-c)*box.W/float64(c)))
		h := int(box.VH) + int(math.Round(float64(rows-r)*box.H/float64(r)))
		w, h = max(w, 700), max(h, 300)
		ctx, cancel := context.WithTimeout(tab, pageWait)
		err = chromedp.Do(ctx, chromedp.EmulateViewport(int64(w), int64(h)))
		cancel()
		if err != nil {
			return 0, 0, fmt.Errorf("resize the viewport to %dx%d: %w", w, h, err)
		}
		if c, r, err = settledSize(home, id); err != nil {
			return 0, 0, err
		}
	}
	return c, r, nil
}

// settledSize returns chat id's pty size once it has held for 500 ms (the
// page tells a new size 150 ms after its last change), asked of the server
// on a connection of its own each time.
func settledSize(home, id string) (int, int, error) {
	const hold = 500 * time.Millisecond
	deadline := time.Now().Add(pageWait)
	var c, r int
	since := time.Now()
	for {
		t, err := ptySize(home, id)
		if err != nil {
			return 0, 0, err
		}
		if t.Cols != c || t.Rows != r {
			c, r, since = t.Cols, t.Rows, time.Now()
		} else if time.Since(since) >= hold {
			return c, r, nil
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("chat %s's size did not settle in %s (now %dx%d)", id, pageWait, c, r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ptySize asks the server of home for chat id's terminal: a connection
// made a watcher of no size (it sizes nothing), then closed.
func ptySize(home, id string) (proto.Terminal, error) {
	conn, err := client.Dial(home)
	if err != nil {
		return proto.Terminal{}, err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), serverWait)
	defer cancel()
	var w proto.StatesResult
	if err := conn.Call(ctx, proto.MethodWatch, proto.SizeParams{}, &w); err != nil {
		return proto.Terminal{}, fmt.Errorf("watch: %w", err)
	}
	v, ok := w.States[id]
	if !ok {
		return proto.Terminal{}, fmt.Errorf("the server has no chat %s", id)
	}
	return v.Terminal, nil
}

// termScript adds the observers the terminal rows time with, once per
// page, as window.__acpmuxBenchTerm:
//
//   - arm(key, kind, arg, record) expects the next keydown of key (its
//     time stamp is the start) and then the terminal to pass a test, tried
//     in a MutationObserver's callback after each change of the page:
//     kind "last", its last non-blank row is arg; "echoed", its last two
//     are; "has", its text holds arg. current is the promise of that,
//     rejected after limit ms; with record, [start, end] goes to times.
//
// Rows are the terminal element's innerText lines, trailing blanks
// trimmed, as the other rows read a screen.
const termScript = `(() => {
  if (window.__acpmuxBenchTerm) return;
  const sel = ` + "`" + pageTerminal + "`" + `;
  const B = window.__acpmuxBenchTerm = { times: [], pending: null, current: null };
  const term = () => document.querySelector(sel);
  const rows = () => term().innerText.split("\n").map((s) => s.replace(/\s+$/, "")).filter((s) => s !== "");
  const tests = {
    last: (arg) => { const r = rows(); return r.length > 0 && r[r.length - 1] === arg; },
    echoed: (arg) => { const r = rows(); return r.length > 1 && r[r.length - 1] === arg && r[r.length - 2] === arg; },
    has: (arg) => term().textContent.includes(arg),
  };
  window.addEventListener("keydown", (ev) => {
    const p = B.pending;
    if (p && p.start < 0 && ev.key === p.key) p.start = ev.timeStamp;
  }, true);
  const check = () => {
    const p = B.pending;
    if (!p || p.start < 0 || !term() || !tests[p.kind](p.arg)) return;
    const end = performance.now();
    B.pending = null;
    clearTimeout(p.timer);
    if (p.record) B.times.push([p.start, end]);
    p.resolve();
  };
  new MutationObserver(check).observe(document.body, { childList: true, subtree: true, characterData: true });
  B.arm = (key, kind, arg, record, limit) => {
    B.current = new Promise((resolve, reject) => {
      const p = { key, kind, arg, record, start: -1, resolve };
      p.timer = setTimeout(() => {
        B.pending = null;
        const r = term() ? rows() : [];
        reject(new Error("not shown after " + limit + " ms (key seen: " + (p.start >= 0) + "); the terminal ends with " + JSON.stringify(r.slice(-2))));
      }, limit);
      B.pending = p;
    });
  };
})()`

// pageKey is one key press in the tab, as a keyboard makes it (and as the
// browser tests press keys): a keydown carrying the key's text, then a
// keyup.
func pageKey(r rune) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		k, ok := kb.Keys[r]
		if !ok {
			return fmt.Errorf("no key types %q", r)
		}
		down := input.DispatchKeyEventParams{
			Type: input.DispatchKeyEventTypeKeyDown, Key: k.Key, Code: k.Code,
			WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native,
		}
		if k.Print { // Enter too: its text is "\r"
			down.Text, down.UnmodifiedText = k.Text, k.Unmodified
		}
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, down); err != nil {
			return err
		}
		up := down
		up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, up)
		return err
	})
}

// pressAndAwait arms the terminal's observers for key (its DOM name) and
// test, presses r, and waits until the test passed (or limit passed).
func pressAndAwait(tab context.Context, key string, r rune, kind, arg string, record bool, limit time.Duration) error {
	arm := fmt.Sprintf("__acpmuxBenchTerm.arm(%s, %s, %s, %t, %d)", jsQuote(key), jsQuote(kind), jsQuote(arg), record, limit.Milliseconds())
	if _, err := pageEval[chromedp.Void](tab, pageWait, arm); err != nil {
		return fmt.Errorf("arm the observers: %w", err)
	}
	ctx, cancel := context.WithTimeout(tab, pageWait)
	err := chromedp.Do(ctx, pageKey(r))
	cancel()
	if err != nil {
		return fmt.Errorf("press %s: %w", key, err)
	}
	if _, err := pageEval[chromedp.Void](tab, limit+pageWait, "__acpmuxBenchTerm.current"); err != nil {
		return fmt.Errorf("after %s: %w", key, err)
	}
	return nil
}

// pageTimes takes the times the terminal's observers recorded so far (end
// less start, each read in the page), in one read.
func pageTimes(tab context.Context) ([]time.Duration, error) {
	spans, err := pageEval[[][2]float64](tab, pageWait, "__acpmuxBenchTerm.times.splice(0)")
	if err != nil {
		return nil, fmt.Errorf("read the page's times: %w", err)
	}
	out := make([]time.Duration, len(spans))
	for i, s := range spans {
		if s[1] < s[0] {
			return nil, fmt.Errorf("the page timed %v: it ends before it starts", s)
		}
		out[i] = time.Duration((s[1] - s[0]) * float64(time.Millisecond))
	}
	return out, nil
}
