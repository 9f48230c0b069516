package mention

import (
	"sync"
	"time"
)

// Listings bounds, for a server that lists chats' files for each key a
// client types: a listing is reused while it is Fresh, and Cached
// listings are kept at most.
const (
	Fresh  = 30 * time.Second
	Cached = 8
)

// Listings keeps the last few listings, by key, a short while, so each
// key typed after an @ ranks the listing made for the first one instead
// of walking the folders again. The zero value is ready; it is safe for
// concurrent use, and no walk runs under its lock.
type Listings struct {
	mu sync.Mutex
	m  map[string]listing
}

type listing struct {
	files []File
	full  bool
	at    time.Time
}

// Get returns the listing kept for key when it is fresh at now, else the
// one list makes (prepared, as List's are), which it keeps.
func (l *Listings) Get(key string, now time.Time, list func() ([]File, bool)) ([]File, bool) {
	l.mu.Lock()
	got, ok := l.m[key]
	l.mu.Unlock()
	if ok && now.Sub(got.at) < Fresh && !now.Before(got.at) {
		return got.files, got.full
	}
	files, full := list()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]listing{}
	}
	l.m[key] = listing{files, full, now}
	for len(l.m) > Cached {
		oldest := ""
		for k, v := range l.m {
			if oldest == "" || v.at.Before(l.m[oldest].at) {
				oldest = k
			}
		}
		delete(l.m, oldest)
	}
	return files, full
}
