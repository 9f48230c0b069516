package browser

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// ErrorKind says where a ConsoleError came from.
type ErrorKind string

// The kinds of ConsoleError.
const (
	// KindConsole is a call of console.error or console.assert that failed.
	KindConsole ErrorKind = "console.error"
	// KindException is an uncaught exception or an unhandled rejection.
	KindException ErrorKind = "uncaught exception"
	// KindCSP is a Content-Security-Policy violation: something the page
	// tried to load or run was refused.
	KindCSP ErrorKind = "CSP violation"
	// KindBrowser is an error entry of the browser's log (a failed
	// request, a refused WebSocket): its Source says which part.
	KindBrowser ErrorKind = "browser log"
)

// ConsoleError is one error the page reported.
type ConsoleError struct {
	Kind   ErrorKind
	Source string // the browser log's source ("network", "security", …); empty otherwise
	Text   string
	URL    string // where it came from, when known
}

// String is the error as a test prints it.
func (e ConsoleError) String() string {
	s := string(e.Kind)
	if e.Source != "" {
		s += " (" + e.Source + ")"
	}
	s += ": " + e.Text
	if e.URL != "" {
		s += " [" + redact(e.URL) + "]"
	}
	return s
}

// Dialog is a JavaScript dialog (alert, confirm, prompt) the page opened.
// The harness dismisses each at once.
type Dialog struct {
	Type    string
	Message string
}

// ConsoleErrors returns every error the page reported so far: console
// errors, uncaught exceptions, CSP violations and the browser log's
// errors, in order.
func (b *Browser) ConsoleErrors() []ConsoleError {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.problems)
}

// Dialogs returns the JavaScript dialogs the page opened so far.
func (b *Browser) Dialogs() []Dialog {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.dialogs)
}

// NoConsoleErrors fails the test (without stopping it) for each error the
// page reported, except those one of allowed returns true for, and for
// each dialog it opened.
func (b *Browser) NoConsoleErrors(allowed ...func(ConsoleError) bool) {
	b.t.Helper()
	for _, e := range b.ConsoleErrors() {
		if !slices.ContainsFunc(allowed, func(ok func(ConsoleError) bool) bool { return ok(e) }) {
			b.t.Errorf("the page reported %s", e)
		}
	}
	for _, d := range b.Dialogs() {
		b.t.Errorf("the page opened a %s dialog: %q", d.Type, d.Message)
	}
}

// listen sees every event of the tab, in order, from its start
// (chromedp.WithListener). It runs in the tab's read loop: it only
// records, and hands the dialog's answer to a goroutine.
func (b *Browser) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			e := ConsoleError{Kind: KindConsole, Text: argsText(ev.Args)}
			if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
				e.URL = ev.StackTrace.CallFrames[0].URL
			}
			b.record(e)
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			first, _, _ := strings.Cut(d.Exception.Description, "\n")
			text += " " + first
		}
		b.record(ConsoleError{Kind: KindException, Text: text, URL: d.URL})
	case *log.EventEntryAdded:
		en := ev.Entry
		if en.Level != log.EntryLevelError {
			return
		}
		e := ConsoleError{Kind: KindBrowser, Source: string(en.Source), Text: en.Text, URL: en.URL}
		if strings.Contains(en.Text, "Content Security Policy") {
			e.Kind = KindCSP
		}
		b.record(e)
	case *page.EventJavascriptDialogOpening:
		b.mu.Lock()
		b.dialogs = append(b.dialogs, Dialog{Type: string(ev.Type), Message: ev.Message})
		b.mu.Unlock()
		go b.dismiss()
	}
}

func (b *Browser) record(e ConsoleError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, e)
}

// argsText is a console call's arguments as text: strings as they are,
// other values by their description.
func argsText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		switch {
		case a == nil:
			parts = append(parts, "null")
		case a.Type == runtime.RemoteObjectTypeString:
			var s string
			if err := json.Unmarshal(a.Value, &s); err == nil {
				parts = append(parts, s)
				continue
			}
			parts = append(parts, string(a.Value))
		case a.Description != "":
			parts = append(parts, a.Description)
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
		default:
			parts = append(parts, fmt.Sprint(a.Type))
		}
	}
	return strings.Join(parts, " ")
}
