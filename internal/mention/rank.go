package mention

import "slices"

// Rank returns the files that match query, at most limit of them (limit
// <= 0: all), and how many matched in all: the chat's own files first,
// then its folders' files, each group best first (shorter labels first
// among equals, then the listing's order; the listing's order alone for
// an empty query). A file not made ready (Prepare) is made ready for this
// call only.
func Rank(files []File, query string, limit int) (ranked []File, matched int) {
	type scored struct {
		i     int
		score int
	}
	var hits []scored
	q := Query(query)
	for i := range files {
		t := files[i].target
		if t.runes == nil {
			t = NewTarget(files[i].Match)
		}
		if s, ok := match(q, t); ok {
			hits = append(hits, scored{i, s})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		fa, fb := &files[a.i], &files[b.i]
		switch {
		case fa.Own != fb.Own:
			if fa.Own {
				return -1
			}
			return 1
		case a.score != b.score:
			return b.score - a.score
		case query == "":
			return 0 // the listing's order
		}
		return len(fa.Label) - len(fb.Label)
	})
	n := len(hits)
	if limit > 0 {
		n = min(n, limit)
	}
	ranked = make([]File, n)
	for k, h := range hits[:n] {
		ranked[k] = files[h.i]
	}
	return ranked, len(hits)
}
