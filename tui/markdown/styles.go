package markdown

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Class is a kind of text the renderer paints: a style of inline text, a
// token of highlighted code, a line of a diff.
type Class uint8

// The classes. The inline ones (Strong to Heading) combine as bits; the
// rest stand alone.
const (
	Strong  Class = 1 << iota // **strong**
	Em                        // *em*
	Strike                    // ~~strike~~
	Code                      // `code span`
	Link                      // a link's text
	Heading                   // a heading's text
	numInline
)

// The standalone classes, above the inline bits.
const (
	Dim     Class = numInline + iota // secondary text: a URL, a quote's bar, a rule, a cut mark
	Keyword                          // a keyword of highlighted code
	String                           // a string literal
	Comment                          // a comment
	Number                           // a number literal
	Added                            // a diff's added line
	Removed                          // a diff's removed line
	Hunk                             // a diff's @@ line
	Accent                           // a title, a spinner
	OK                               // done
	Warn                             // running, asking
	Error                            // failed
	Bold                             // bold alone
	numClasses
)

// sgr is the escape sequences that open and close a class's style, ""
// when the profile draws it plain.
type sgr struct{ on, off string }

// Styles paint the renderer's classes through a lipgloss renderer: its
// colour profile decides what reaches the terminal (the ASCII profile and
// NO_COLOR give plain text). They are built once where the app's styles
// are, and each class's sequences are made the first time it is drawn, so
// making them costs nothing at start. Styles are used from one goroutine.
type Styles struct {
	r     *lipgloss.Renderer
	color bool
	dark  bool
	seqs  [numClasses]sgr
	made  [numClasses]bool
}

// NewStyles returns the styles drawn through r (nil: lipgloss's default);
// color false leaves colours out (bold, italic and faint stay, as the
// profile allows); dark picks the colours for a dark background.
func NewStyles(r *lipgloss.Renderer, color, dark bool) *Styles {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	return &Styles{r: r, color: color, dark: dark}
}

// pick returns the colour for a dark or a light background.
func (s *Styles) pick(dark, light string) lipgloss.Color {
	if s.dark {
		return lipgloss.Color(dark)
	}
	return lipgloss.Color(light)
}

// style is the lipgloss style of a class.
func (s *Styles) style(c Class) lipgloss.Style {
	st := s.r.NewStyle()
	fg := func(col lipgloss.Color) {
		if s.color {
			st = st.Foreground(col)
		}
	}
	switch c {
	case Dim:
		if s.color {
			fg(lipgloss.Color("8"))
		} else {
			st = st.Faint(true)
		}
		return st
	case Keyword:
		fg(s.pick("170", "90"))
	case String:
		fg(s.pick("114", "28"))
	case Comment:
		fg(s.pick("245", "243"))
		if !s.color {
			st = st.Faint(true)
		}
	case Number:
		fg(s.pick("179", "130"))
	case Added, OK:
		fg(lipgloss.Color("2"))
	case Removed, Error:
		fg(lipgloss.Color("1"))
	case Hunk, Accent:
		fg(lipgloss.Color("6"))
	case Warn:
		fg(lipgloss.Color("3"))
	case Bold:
		st = st.Bold(true)
	}
	if c >= numInline {
		return st
	}
	// The inline bits combine.
	if c&(Strong|Heading) != 0 {
		st = st.Bold(true)
	}
	if c&Em != 0 {
		st = st.Italic(true)
	}
	if c&Strike != 0 {
		st = st.Strikethrough(true)
	}
	switch {
	case c&Heading != 0:
		fg(lipgloss.Color("6"))
	case c&Code != 0:
		fg(s.pick("216", "124"))
	case c&Link != 0:
		fg(s.pick("75", "25"))
		st = st.Underline(true)
	}
	return st
}

// seq returns the sequences of class c, made once.
func (s *Styles) seq(c Class) sgr {
	if c >= numClasses {
		return sgr{}
	}
	if !s.made[c] {
		// The sequences lipgloss writes around one letter: what it would
		// write around any text, without its per-call cost.
		out := s.style(c).Render("x")
		i := strings.IndexByte(out, 'x')
		if i >= 0 {
			s.seqs[c] = sgr{out[:i], out[i+1:]}
		}
		s.made[c] = true
	}
	return s.seqs[c]
}

// Paint returns text drawn in class c.
func (s *Styles) Paint(c Class, text string) string {
	if text == "" {
		return ""
	}
	q := s.seq(c)
	if q.on == "" {
		return text
	}
	return q.on + text + q.off
}

// paintTo writes text drawn in class c to b.
func (s *Styles) paintTo(b *strings.Builder, c Class, text string) {
	q := s.seq(c)
	b.WriteString(q.on)
	b.WriteString(text)
	b.WriteString(q.off)
}
