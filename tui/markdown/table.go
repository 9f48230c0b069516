package markdown

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// maxColumns bounds a table's columns; cells past it are dropped.
const maxColumns = 32

// align is a table column's alignment.
type align uint8

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// isTableStart reports whether lines[i] is a table's header row: it holds
// a '|' and the next line is a delimiter row with as many cells.
func isTableStart(lines []string, i int) bool {
	if i+1 >= len(lines) || strings.IndexByte(lines[i], '|') < 0 || indentOf(lines[i]) > 3 {
		return false
	}
	aligns, ok := delimRow(lines[i+1])
	return ok && len(aligns) == len(splitCells(lines[i]))
}

// delimRow reads a table's delimiter row (| :--- | ---: |).
func delimRow(l string) ([]align, bool) {
	if strings.IndexByte(l, '-') < 0 || indentOf(l) > 3 {
		return nil, false
	}
	cells := splitCells(l)
	if len(cells) == 0 {
		return nil, false
	}
	out := make([]align, len(cells))
	for k, c := range cells {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		d := strings.Trim(c, ":")
		if d == "" || strings.Trim(d, "-") != "" {
			return nil, false
		}
		switch {
		case left && right:
			out[k] = alignCenter
		case right:
			out[k] = alignRight
		}
	}
	// A delimiter row without a pipe is a setext underline.
	return out, strings.IndexByte(l, '|') >= 0 || len(cells) > 1
}

// splitCells splits a table row at its unescaped pipes, without the outer
// ones, each cell trimmed.
func splitCells(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, cellText(l[start:i]))
			start = i + 1
		}
	}
	return append(cells, cellText(l[start:]))
}

func cellText(c string) string {
	return strings.ReplaceAll(strings.TrimSpace(c), `\|`, "|")
}

// table lays out a GFM table with its columns fitted to width: each
// column is as wide as its widest cell while they fit, else the widest
// are narrowed and their cells wrap.
func (r *renderer) table(header, delim string, body []string, width int) []string {
	aligns, _ := delimRow(delim)
	n := min(len(aligns), maxColumns)
	rows := make([][][]span, 0, 1+len(body))
	for k, l := range append([]string{header}, body...) {
		cells := splitCells(l)
		row := make([][]span, n)
		for c := range n {
			if c < len(cells) {
				row[c] = parseInline(cells[c])
			}
			if k == 0 {
				for s := range row[c] {
					if row[c][s].c < numInline {
						row[c][s].c |= Strong
					}
				}
			}
		}
		rows = append(rows, row)
	}
	natural := make([]int, n)
	for _, row := range rows {
		for c, spans := range row {
			natural[c] = max(natural[c], spansWidth(spans), 1)
		}
	}
	widths := fitColumns(natural, width-3*(n-1))
	bar := r.st.Paint(Dim, " │ ")
	var out []string
	for k, row := range rows {
		cells := make([][]string, n)
		height := 1
		for c, spans := range row {
			if len(spans) > 0 {
				cells[c] = r.st.wrap(spans, widths[c])
			}
			height = max(height, len(cells[c]))
		}
		for line := range height {
			var b strings.Builder
			for c := range n {
				if c > 0 {
					b.WriteString(bar)
				}
				text := ""
				if line < len(cells[c]) {
					text = cells[c][line]
				}
				pad := widths[c] - textWidthStyled(text)
				left := 0
				switch aligns[c] {
				case alignRight:
					left = pad
				case alignCenter:
					left = pad / 2
				}
				b.WriteString(strings.Repeat(" ", max(left, 0)))
				b.WriteString(text)
				if c < n-1 {
					b.WriteString(strings.Repeat(" ", max(pad-left, 0)))
				}
			}
			out = append(out, strings.TrimRight(b.String(), " "))
		}
		if k == 0 {
			parts := make([]string, n)
			for c := range n {
				parts[c] = strings.Repeat("─", widths[c])
			}
			out = append(out, r.st.Paint(Dim, strings.Join(parts, "─┼─")))
		}
	}
	return out
}

// spansWidth is the cells spans take on one line.
func spansWidth(spans []span) int {
	w := 0
	for _, s := range spans {
		w += textWidth(s.text)
	}
	return w
}

// fitColumns gives each column its natural width while they fit in
// budget; otherwise the narrow ones keep theirs and the wide ones share
// what is left equally (at least one cell each).
func fitColumns(natural []int, budget int) []int {
	out := append([]int(nil), natural...)
	total := 0
	for _, w := range natural {
		total += w
	}
	if total <= budget {
		return out
	}
	left := make([]bool, len(out)) // still to be fitted
	for c := range left {
		left[c] = true
	}
	rest, count := budget, len(out)
	for changed := true; changed && count > 0; {
		changed = false
		share := rest / count
		for c, w := range natural {
			if left[c] && w <= share {
				out[c], left[c] = w, false
				rest -= w
				count--
				changed = true
			}
		}
	}
	if count > 0 {
		share, extra := max(rest/count, 1), 0
		if rest > 0 {
			extra = rest - share*count
		}
		for c := range out {
			if left[c] {
				out[c] = share
				if extra > 0 {
					out[c]++
					extra--
				}
			}
		}
	}
	return out
}

// textWidthStyled is the cells a styled line takes.
func textWidthStyled(s string) int { return ansi.StringWidth(s) }
