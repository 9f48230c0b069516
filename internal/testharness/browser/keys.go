package browser

import (
	"context"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Key is a key pressed with its modifiers, for Press.
type Key struct {
	Name      string // the DOM key value ("Enter", "Escape", "a")
	Modifiers kb.Modifier
}

// The keys a test presses by name.
var (
	Enter      = Key{Name: "Enter"}
	ShiftEnter = Key{Name: "Enter", Modifiers: kb.ModifierShift}
	Escape     = Key{Name: "Escape"}
	Tab        = Key{Name: "Tab"}
	Backspace  = Key{Name: "Backspace"}
	ArrowUp    = Key{Name: "ArrowUp"}
	ArrowDown  = Key{Name: "ArrowDown"}
	CtrlC      = Key{Name: "c", Modifiers: kb.ModifierCtrl}
)

// namedKeys are the keys Press knows by name, as kb spells them.
var namedKeys = map[string]string{
	"Enter":     kb.Enter,
	"Escape":    kb.Escape,
	"Tab":       kb.Tab,
	"Backspace": kb.Backspace,
	"ArrowUp":   kb.ArrowUp,
	"ArrowDown": kb.ArrowDown,
}

// Type focuses the element matching sel (sel "": the one focused now) and
// types text into it, key by key, as a keyboard does: each key is a
// keydown (with its character, so a page that cancels the keydown also
// cancels the character, as in a real browser) and a keyup. "\n" is the
// Enter key.
func (b *Browser) Type(sel, text string) {
	b.t.Helper()
	steps := b.focus(sel)
	for _, r := range text {
		steps = append(steps, pressRune(r, 0))
	}
	b.do(fmt.Sprintf("typing %q into %s", text, orFocused(sel)), steps...)
}

// Press focuses the element matching sel (sel "": the one focused now) and
// presses k, with its modifiers (ShiftEnter: a new line in a composer
// where Enter sends).
func (b *Browser) Press(sel string, k Key) {
	b.t.Helper()
	name, ok := namedKeys[k.Name]
	if !ok {
		name = k.Name
	}
	rs := []rune(name)
	if len(rs) != 1 {
		b.t.Fatalf("Press: no key named %q", k.Name)
	}
	r := rs[0]
	steps := append(b.focus(sel), pressRune(r, k.Modifiers))
	b.do(fmt.Sprintf("pressing %s into %s", k, orFocused(sel)), steps...)
}

// String names the key as a test reads it: "Shift+Enter".
func (k Key) String() string {
	var mods []string
	for _, m := range []kb.Modifier{kb.ModifierCtrl, kb.ModifierAlt, kb.ModifierMeta, kb.ModifierShift} {
		if k.Modifiers&m != 0 {
			mods = append(mods, m.String())
		}
	}
	return strings.Join(append(mods, k.Name), "+")
}

func (b *Browser) focus(sel string) []chromedp.Action[chromedp.Void] {
	if sel == "" {
		return nil
	}
	return []chromedp.Action[chromedp.Void]{chromedp.Focus(chromedp.CSS(sel), chromedp.NodeVisible)}
}

func orFocused(sel string) string {
	if sel == "" {
		return "the focused element"
	}
	return sel
}

// pressRune is one key press: a keydown carrying the key's text (the
// browser makes the keypress and the input from it, unless the page
// cancels the keydown), then a keyup. Puppeteer presses keys the same way.
func pressRune(r rune, mods kb.Modifier) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if r == '\n' {
			r = '\r'
		}
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Modifiers: int64(mods)}
		if k, ok := kb.Keys[r]; ok {
			down.Key, down.Code = k.Key, k.Code
			down.WindowsVirtualKeyCode, down.NativeVirtualKeyCode = k.Windows, k.Native
			if k.Shift {
				down.Modifiers |= int64(kb.ModifierShift)
			}
			// A key with Ctrl, Alt or Meta types no character.
			if k.Print && mods&^kb.ModifierShift == 0 {
				down.Text, down.UnmodifiedText = k.Text, k.Unmodified
			}
		} else {
			// A character no US keyboard has: its text alone.
			down.Key, down.Text, down.UnmodifiedText = string(r), string(r), string(r)
		}
		if down.Text == "" {
			// No character: a raw keydown.
			down.Type = input.DispatchKeyEventTypeRawKeyDown
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
