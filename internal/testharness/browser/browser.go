// Package browser runs a real headless Chromium for tests of the web page,
// over the DevTools protocol (chromedp): Start gives a test its own browser
// and tab, and the methods drive it as a user does (open an address, click,
// type) and read what the user would see (text, the DOM, screenshots),
// while the page's console errors, uncaught exceptions, CSP violations and
// JavaScript dialogs are collected for the test to assert none.
//
// Every wait has a deadline (wait.Hang), which only detects a hang: no
// test depends on how fast the machine is. A failure names what was waited
// for, and leaves a screenshot and the page's text.
//
// Chromium is Debian's `chromium` (scripts/test installs it). When it is
// missing the test is skipped, except under CI=true or
// ACPMUX_REQUIRE_PEERS=1, where that is a failure; under -short (scripts/test
// --quick) the browser tests are skipped.
package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// Window is the size of the browser's window and of its viewport, in CSS
// pixels: fixed, so that screenshots of one view compare across runs.
var Window = struct{ Width, Height int }{1280, 800}

// debianChromium is where Debian's chromium package puts its launcher.
const debianChromium = "/usr/bin/chromium"

// ErrNoChromium is Find's error when no Chromium is installed.
var ErrNoChromium = errors.New("chromium is not installed (scripts/test installs Debian's chromium; or apt-get install chromium)")

// Find returns the path of the Chromium to run: `chromium` on PATH, else
// Debian's /usr/bin/chromium.
func Find() (string, error) {
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	if fi, err := os.Stat(debianChromium); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return debianChromium, nil
	}
	return "", ErrNoChromium
}

// AllocatorOptions are the flags Chromium at path runs headless with here,
// as root in a container too, in a window of width x height, its output
// going to output. The benchmarks start it the same way.
func AllocatorOptions(path string, width, height int, output io.Writer) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		// As root in a container Chromium's sandbox cannot start (it
		// needs user namespaces, or a setuid helper).
		chromedp.NoSandbox,
		chromedp.Flag("headless", "new"),
		chromedp.DisableGPU,
		// /dev/shm is 64 MB in a default container: Chromium's shared
		// memory goes to the temporary folder instead.
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(width, height),
		chromedp.CombinedOutput(output),
		// The user data folder is chromedp's own temporary one: made at
		// the start, removed (after any leftover child is killed) at the
		// end.
	)
}

// Browser is one headless Chromium with one tab, for one test.
type Browser struct {
	t      testing.TB
	tab    context.Context
	output *lockedbuf.Buffer // Chromium's stdout and stderr

	mu       sync.Mutex
	problems []ConsoleError
	dialogs  []Dialog
	shots    int // failure screenshots taken
}

// Start starts a headless Chromium for t and opens its tab; both end with
// the test. It skips t under -short, and when no Chromium is installed
// (failing it instead under CI=true or ACPMUX_REQUIRE_PEERS=1).
//
// Each test gets its own browser, with its own temporary profile, so no
// cookie or storage of one test reaches another.
func Start(t testing.TB) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the browser tests are left to the full run")
	}
	path, err := Find()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err.Error() + " (required under CI=true)")
		}
		acpschema.SkipUnlessPeers(t, err.Error())
	}
	b := &Browser{t: t, output: new(lockedbuf.Buffer)}
	opts := AllocatorOptions(path, Window.Width, Window.Height, b.output)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(b.listen))
	b.tab = tab
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc() // waits for the browser to exit and its folder to go
		if t.Failed() {
			if out := chromiumOutput(b.output.String()); out != "" {
				t.Logf("chromium's output:\n%s", out)
			}
		}
	})
	// The first Do starts the browser and binds it to the context given:
	// it gets the tab's own, and the deadline is kept here. The viewport
	// is set too: --window-size alone leaves a headless window's viewport
	// shorter than the window.
	started := make(chan error, 1)
	go func() {
		started <- chromedp.Do(tab, chromedp.EmulateViewport(int64(Window.Width), int64(Window.Height)))
	}()
	timer := time.NewTimer(wait.Hang)
	defer timer.Stop()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("start chromium (%s): %v\n%s", path, err, chromiumOutput(b.output.String()))
		}
	case <-timer.C:
		cancelTab()
		t.Fatalf("timed out after %v waiting for chromium (%s) to start\n%s", wait.Hang, path, chromiumOutput(b.output.String()))
	}
	return b
}

// chromiumOutput is what Chromium printed, without its complaints that a
// container has no D-Bus (a dozen lines at every start, of no use to a
// test).
func chromiumOutput(out string) string {
	var keep []string
	for line := range strings.Lines(out) {
		if !strings.Contains(line, ":ERROR:dbus/") {
			keep = append(keep, line)
		}
	}
	return strings.TrimSpace(strings.Join(keep, ""))
}

// do runs actions on the tab with the hang deadline; what names them in a
// failure ("waiting for …").
func (b *Browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, wait.Hang)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.fail(what, err)
	}
}

// fail ends the test for an action that failed or timed out, with a
// screenshot and the page's address and text.
func (b *Browser) fail(what string, err error) {
	b.t.Helper()
	var msg string
	if errors.Is(err, context.DeadlineExceeded) {
		msg = fmt.Sprintf("timed out after %v waiting for %s", wait.Hang, what)
	} else {
		msg = fmt.Sprintf("%s: %v", what, err)
	}
	b.t.Fatalf("%s%s", msg, b.diagnosis())
}

// diagnosis is what a failure report adds: a screenshot, the page's
// address (without its fragment) and the start of its text. Its own waits
// are short: the page may be what hangs.
func (b *Browser) diagnosis() string {
	b.mu.Lock()
	b.shots++
	n := b.shots
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(b.tab, 30*time.Second)
	defer cancel()
	var s strings.Builder
	if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		if path, err := writeArtifact(b.t, fmt.Sprintf("failure-%d", n), png); err == nil {
			fmt.Fprintf(&s, "\nscreenshot: %s", path)
		}
	}
	var seen struct {
		URL  string `json:"url"`
		Text string `json:"text"`
	}
	if raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](`({url: location.origin + location.pathname, text: document.body ? document.body.innerText : ""})`)); err == nil && json.Unmarshal(raw, &seen) == nil {
		const most = 2000
		if len(seen.Text) > most {
			seen.Text = seen.Text[:most] + "…"
		}
		fmt.Fprintf(&s, "\npage: %s\npage text:\n%s", seen.URL, seen.Text)
	}
	return s.String()
}

// redact keeps a URL's fragment (where the page's token travels) out of
// test logs.
func redact(url string) string {
	if i := strings.IndexByte(url, '#'); i >= 0 {
		return url[:i] + "#…"
	}
	return url
}

// Viewport makes the tab width x height CSS pixels, as a phone's screen
// when touch is set (touch events on, a mobile viewport).
func (b *Browser) Viewport(width, height int, touch bool) {
	b.t.Helper()
	opts := []chromedp.EmulateViewportOption{}
	if touch {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	b.do(fmt.Sprintf("the viewport to be %dx%d", width, height), chromedp.EmulateViewport(int64(width), int64(height), opts...))
}

// Navigate opens url in the tab and waits for it to load.
func (b *Browser) Navigate(url string) {
	b.t.Helper()
	b.do("the page "+redact(url)+" to load", chromedp.Navigate(url))
}

// Reload loads the page again and waits for it to load.
func (b *Browser) Reload() {
	b.t.Helper()
	b.do("the page to load again", chromedp.Reload())
}

// WaitVisible waits until an element matching the CSS selector sel is
// visible.
func (b *Browser) WaitVisible(sel string) {
	b.t.Helper()
	b.do(sel+" to be visible", chromedp.WaitVisible(chromedp.CSS(sel)))
}

// WaitGone waits until no element matches the CSS selector sel.
func (b *Browser) WaitGone(sel string) {
	b.t.Helper()
	b.do(sel+" to be gone", chromedp.WaitNotPresent(chromedp.CSS(sel)))
}

// Text waits until an element matching sel is visible and returns its
// text as shown (innerText).
func (b *Browser) Text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, wait.Hang)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		b.fail("the text of "+sel, err)
	}
	return text
}

// Click waits until an element matching sel is visible and clicks its
// centre with the mouse.
func (b *Browser) Click(sel string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, wait.Hang)
	defer cancel()
	for {
		err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel)))
		if err == nil {
			return
		}
		if !nodeGone(err) || ctx.Err() != nil {
			b.fail("a click on "+sel, err)
			return
		}
		// The page drew the node again between the query and the click
		// (a list redrawn as news comes): the click goes to the new one.
	}
}

// nodeGone reports whether err is DevTools saying the node an action
// found is no longer in the page.
func nodeGone(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Could not find node with given id") || strings.Contains(msg, "Node is detached from document") ||
		strings.Contains(msg, "No node with given id found")
}

// Eval evaluates the JavaScript expression expr in the page (a promise is
// awaited) and decodes its value, as JSON, into out (nil: ignored). An
// exception fails the test.
func (b *Browser) Eval(expr string, out any) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, wait.Hang)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.fail("evaluate "+expr, err)
	}
	if out == nil {
		return
	}
	if err := json.Unmarshal(raw, out); err != nil {
		b.t.Fatalf("evaluate %s: the value %s: %v", expr, raw, err)
	}
}

// Has reports whether the expression expr is true in the page now.
func (b *Browser) Has(expr string) bool {
	b.t.Helper()
	var ok bool
	b.Eval("Boolean("+expr+")", &ok)
	return ok
}

// Count returns how many elements match the CSS selector sel now.
func (b *Browser) Count(sel string) int {
	b.t.Helper()
	var n int
	b.Eval("document.querySelectorAll("+Quote(sel)+").length", &n)
	return n
}

// WaitTrue waits until the expression expr is true in the page; what
// names the condition in a failure. It is checked again on a timer that
// backs off from 5 ms to 100 ms, across reloads and navigations.
func (b *Browser) WaitTrue(what, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, wait.Hang)
	defer cancel()
	backoff := 5 * time.Millisecond
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("Boolean("+expr+")"))
		if err == nil && ok {
			return
		}
		var exc *chromedp.ExceptionError
		if errors.As(err, &exc) {
			b.fail("evaluate "+expr+" (waiting for "+what+")", err)
		}
		// Any other error (a page between two documents) is looked at
		// again, until the deadline.
		select {
		case <-ctx.Done():
			b.fail(what, ctx.Err())
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 100*time.Millisecond)
	}
}

// Quote returns s as a JavaScript string literal, for an expression given
// to Eval, Has or WaitTrue.
func Quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// dismiss answers a JavaScript dialog with "cancel", so that the page goes
// on (an open dialog blocks it, and every evaluation with it).
func (b *Browser) dismiss() {
	ctx, cancel := context.WithTimeout(b.tab, wait.Hang)
	defer cancel()
	// An error here is the tab ending, or the dialog already gone.
	_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
}
