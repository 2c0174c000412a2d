package retrieval

// Expected sources (--expect): how a reference is parsed, resolved to the
// collection's doc paths, and matched to its closest paths when it names
// none.

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"ragscope/internal/editdist"
)

// ExpectRef is an expected source: a doc path (with or without a leading
// "docs/"), a citation URL or path, each with an optional #anchor, or a
// point id.
type ExpectRef struct {
	// Raw is the reference as given.
	Raw string
	// DocPath is a doc path ("" for a URL or a point id).
	DocPath string
	// URLPath is the path of a citation URL ("" otherwise).
	URLPath string
	// Anchor is the #section, "" for the whole page.
	Anchor string
	// PointID is a point id ("" otherwise).
	PointID string
	// Module and Chapter name a whole module or chapter (an eval case's
	// expectation; --expect does not parse them): its best chunk for the
	// question is the one explained.
	Module, Chapter string
}

// ModuleRef is the expected source "every chunk of module m".
func ModuleRef(m string) ExpectRef { return ExpectRef{Raw: "module " + m, Module: m} }

// ChapterRef is the expected source "every chunk of chapter c".
func ChapterRef(c string) ExpectRef { return ExpectRef{Raw: "chapter " + c, Chapter: c} }

// ErrBadExpectRef is returned for a reference that cannot name a source.
var ErrBadExpectRef = &ValidationError{Field: "expect", Msg: "an expected source is a doc path, a citation URL or a point id."}

// ParseExpectRef parses a --expect REF.
func ParseExpectRef(raw string) (ExpectRef, error) {
	r := ExpectRef{Raw: raw}
	s := strings.TrimSpace(raw)
	if s == "" || s == "#" {
		return r, invalid(ErrBadExpectRef, strconv.Quote(raw))
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return r, invalid(ErrBadExpectRef, strconv.Quote(raw))
		}
		r.URLPath, r.Anchor = u.Path, u.Fragment
		if r.URLPath == "" {
			r.URLPath = "/"
		}
		return r, nil
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s, r.Anchor = s[:i], s[i+1:]
	}
	switch {
	case isDocFile(s):
		r.DocPath = strings.TrimPrefix(s, "./")
	case strings.HasPrefix(s, "/"):
		r.URLPath = s
	case r.Anchor == "" && isPointID(s):
		r.PointID = s
	default:
		r.DocPath = strings.TrimPrefix(s, "./")
	}
	return r, nil
}

func isDocFile(s string) bool {
	return strings.HasSuffix(s, ".md") || strings.HasSuffix(s, ".mdx")
}

// isPointID reports whether s is a Qdrant point id: an unsigned integer or
// a UUID.
func isPointID(s string) bool {
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return true
	}
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

// docPathVariants are the stored doc paths a REF's doc path may match:
// as given, with or without a leading "docs/" or "website/docs/", and,
// when it has no .md/.mdx extension, with either.
func docPathVariants(p string) []string {
	p = strings.TrimPrefix(p, "/")
	base := strings.TrimPrefix(strings.TrimPrefix(p, "website/"), "docs/")
	exts := []string{""}
	if !isDocFile(base) {
		exts = []string{"", ".md", ".mdx"}
	}
	out := []string{}
	seen := map[string]bool{}
	for _, pre := range []string{"", "docs/", "website/docs/"} {
		for _, ext := range exts {
			if v := pre + base + ext; !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// ResolveRefs returns refs with each URL ref's doc path filled in from
// the collection's citations (one walk of the store, only when a URL ref
// has no doc path yet); a URL no chunk cites keeps an empty DocPath.
// Diagnose resolves its refs itself; a caller diagnosing many questions
// resolves them once.
func (p *Pipeline) ResolveRefs(ctx context.Context, refs []ExpectRef) ([]ExpectRef, error) {
	out := append([]ExpectRef(nil), refs...)
	need := false
	for _, r := range refs {
		need = need || (r.URLPath != "" && r.DocPath == "")
	}
	if !need {
		return out, nil
	}
	pages, err := p.pages(ctx)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].URLPath == "" || out[i].DocPath != "" {
			continue
		}
		want := strings.TrimSuffix(out[i].URLPath, "/")
		for _, pg := range pages {
			if pg.path != "" && strings.TrimSuffix(pg.path, "/") == want {
				out[i].DocPath = pg.docPath
				break
			}
		}
	}
	return out, nil
}

// page is one document of the collection and its citation URL's path.
type page struct {
	docPath string
	path    string
}

// pages walks the store for its documents (Walker stores only).
func (p *Pipeline) pages(ctx context.Context) ([]page, error) {
	w, ok := p.Store.(Walker)
	if !ok {
		return nil, fmt.Errorf("%w: this backend cannot list its documents to match a URL: give a doc path", ErrConfig)
	}
	seen := map[string]bool{}
	var out []page
	err := w.Walk(ctx, func(chunks []Chunk, _ int) error {
		for i := range chunks {
			c := &chunks[i]
			if c.DocPath == "" || seen[c.DocPath] {
				continue
			}
			seen[c.DocPath] = true
			pg := page{docPath: c.DocPath}
			if cit := p.URLs.Cite(c); cit.URL != "" {
				if u, err := url.Parse(cit.URL); err == nil {
					pg.path = u.Path
				}
			}
			out = append(out, pg)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return out, nil
}

// DocPaths lists the collection's doc paths (a walk of the store), for
// suggesting the closest to a REF that matched nothing.
func (p *Pipeline) DocPaths(ctx context.Context) ([]string, error) {
	pages, err := p.pages(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(pages))
	for i, pg := range pages {
		out[i] = pg.docPath
	}
	sort.Strings(out)
	return out, nil
}

// Closest returns up to n of paths closest to ref (by edit distance of
// their names, then of the whole path).
func Closest(ref string, paths []string, n int) []string {
	ref = strings.ToLower(strings.TrimPrefix(ref, "docs/"))
	base := func(s string) string {
		s = strings.TrimSuffix(strings.TrimSuffix(s, ".mdx"), ".md")
		if i := strings.LastIndexByte(s, '/'); i >= 0 {
			s = s[i+1:]
		}
		return s
	}
	type cand struct {
		p    string
		d, e int
	}
	cs := make([]cand, len(paths))
	for i, p := range paths {
		lp := strings.ToLower(strings.TrimPrefix(p, "docs/"))
		cs[i] = cand{p, editdist.Levenshtein(base(ref), base(lp)), editdist.Levenshtein(ref, lp)}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].e < cs[j].e
	})
	out := []string{}
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].p)
	}
	return out
}
