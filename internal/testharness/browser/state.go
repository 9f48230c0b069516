package browser

import (
	"context"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// Cookie is what a test reads of one of the browser's cookies.
type Cookie struct {
	Name     string
	Value    string
	Path     string
	HTTPOnly bool
	SameSite string
	Secure   bool
}

// Cookies returns the browser's cookies for the tab's page, as the
// browser keeps them, HttpOnly ones too (which the page cannot read).
func (b *Browser) Cookies() []Cookie {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, wait.Hang)
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		b.fail("the cookies", err)
	}
	var out []Cookie
	for _, c := range res.Cookies {
		out = append(out, Cookie{Name: c.Name, Value: c.Value, Path: c.Path, HTTPOnly: c.HTTPOnly, SameSite: string(c.SameSite), Secure: c.Secure})
	}
	return out
}

// History returns the URLs of the tab's history entries (what Back and
// Forward go through), oldest first, as the browser keeps them.
func (b *Browser) History() []string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, wait.Hang)
	defer cancel()
	res, err := chromedp.Run(ctx, chromedp.NavigationEntries())
	if err != nil {
		b.fail("the history", err)
	}
	var urls []string
	for _, e := range res.Entries {
		urls = append(urls, e.URL)
	}
	return urls
}
