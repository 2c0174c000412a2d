package local

import (
	"context"
	"strings"

	"ragscope/retrieval"
)

// PageTitle implements retrieval.PageTitler: the title of the page whose
// chunks have docPath, or have its route (a number prefix or the folders
// above docs/ left out).
func (ix *Index) PageTitle(_ context.Context, docPath string) (string, bool) {
	lz := ix.lazy
	lz.titlesOnce.Do(func() {
		titles := make(map[string]string)
		for i := range ix.chunks {
			c := &ix.chunks[i]
			if c.DocPath == "" || c.Title == "" {
				continue
			}
			if _, ok := titles[c.DocPath]; !ok {
				titles[c.DocPath] = c.Title
			}
			if r := routeKey(c.DocPath); r != "" {
				if _, ok := titles[r]; !ok {
					titles[r] = c.Title
				}
			}
		}
		lz.titles = titles
	})
	p := strings.TrimSpace(docPath)
	if t, ok := lz.titles[p]; ok {
		return t, true
	}
	if r := routeKey(p); r != "" {
		t, ok := lz.titles[r]
		return t, ok
	}
	return "", false
}

// routeKey is the title map's key for a doc path's route, apart from the
// doc paths themselves ("route:" cannot start a path that has a route).
func routeKey(docPath string) string {
	r := retrieval.DocRoute(docPath, "")
	if r == "" {
		return ""
	}
	return "route:" + r
}
