package eval

import (
	"net/url"
	"strings"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

// Grade is the graded relevance of h for e: the number of expectation
// kinds (module, chapter, doc path, URL) that h matches, 0..4. A hit is
// relevant when its grade is at least 1. A hit in the expected module
// scores 1; one on the expected page and in the expected module scores 2;
// one also under the expected #anchor (URL) and chapter scores 4.
func Grade(h retrieval.Hit, e Expect) int {
	g := 0
	if matchModule(h.Chunk.Module, e.Modules) {
		g++
	}
	if matchChapter(h.Chunk.Chapter, e.Chapters) {
		g++
	}
	if matchAnyDocPath(hitDocPath(h), e.DocPaths) {
		g++
	}
	if matchAnyURL(hitURL(h), e.URLs) {
		g++
	}
	return g
}

// foundItems counts the distinct expected doc paths and URLs matched by at
// least one of hits: the numerator of recall@k.
func foundItems(hits []retrieval.Hit, e Expect) int {
	n := 0
	for _, want := range dedupStrings(e.DocPaths) {
		for _, h := range hits {
			if matchDocPath(hitDocPath(h), want) {
				n++
				break
			}
		}
	}
	for _, want := range dedupStrings(e.URLs) {
		for _, h := range hits {
			if matchURL(hitURL(h), want) {
				n++
				break
			}
		}
	}
	return n
}

func hitDocPath(h retrieval.Hit) string {
	if h.Chunk.DocPath != "" {
		return h.Chunk.DocPath
	}
	return h.Citation.DocPath
}

func hitURL(h retrieval.Hit) string {
	if h.Citation.URL != "" {
		return h.Citation.URL
	}
	return h.Chunk.URL
}

func matchModule(have string, want []string) bool {
	if have == "" {
		return false
	}
	for _, w := range want {
		if strings.EqualFold(strings.TrimSpace(w), have) {
			return true
		}
	}
	return false
}

// matchChapter compares chapters case-insensitively and without number
// prefixes, so "01-what-is-ros2" matches "what-is-ros2".
func matchChapter(have string, want []string) bool {
	if have == "" {
		return false
	}
	h := strings.ToLower(docusaurus.StripNumberPrefix(strings.TrimSpace(have)))
	for _, w := range want {
		if strings.ToLower(docusaurus.StripNumberPrefix(strings.TrimSpace(w))) == h {
			return true
		}
	}
	return false
}

func matchAnyDocPath(have string, want []string) bool {
	for _, w := range want {
		if matchDocPath(have, w) {
			return true
		}
	}
	return false
}

// normDocPath drops "./", a "website/docs/" or "docs/" prefix and a .md or
// .mdx extension.
func normDocPath(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, "\\", "/"))
	p = strings.TrimPrefix(p, "./")
	p = strings.TrimPrefix(p, "/")
	for _, pre := range []string{"website/docs/", "docs/"} {
		if strings.HasPrefix(p, pre) {
			p = p[len(pre):]
			break
		}
	}
	for _, ext := range []string{".mdx", ".md"} {
		if strings.HasSuffix(p, ext) {
			return p[:len(p)-len(ext)]
		}
	}
	return p
}

func matchDocPath(have, want string) bool {
	if have == "" || want == "" {
		return false
	}
	if strings.HasSuffix(want, "/") {
		return strings.HasPrefix(normDocPath(have)+"/", strings.TrimSuffix(normDocPath(want), "/")+"/")
	}
	return normDocPath(have) == normDocPath(want)
}

func matchAnyURL(have string, want []string) bool {
	for _, w := range want {
		if matchURL(have, w) {
			return true
		}
	}
	return false
}

// matchURL: with a #anchor in want, the page and the anchor must both be
// equal; without, want is a prefix of the page at a path boundary. A want
// without a scheme is compared with the path of have. Trailing slashes do
// not matter.
func matchURL(have, want string) bool {
	have, want = strings.TrimSpace(have), strings.TrimSpace(want)
	if have == "" || want == "" {
		return false
	}
	hPage, hFrag := splitFragment(have)
	wPage, wFrag := splitFragment(want)
	if !strings.Contains(wPage, "://") {
		if u, err := url.Parse(hPage); err == nil && u.Scheme != "" {
			hPage = u.EscapedPath()
			if u.RawQuery != "" {
				hPage += "?" + u.RawQuery
			}
		}
		if wPage != "" && !strings.HasPrefix(wPage, "/") {
			wPage = "/" + wPage
		}
	}
	hPage, wPage = trimSlash(hPage), trimSlash(wPage)
	if strings.Contains(want, "#") {
		return hPage == wPage && hFrag == wFrag
	}
	if hPage == wPage {
		return true
	}
	return strings.HasPrefix(hPage, wPage) && (hPage[len(wPage)] == '/' || hPage[len(wPage)] == '?')
}

func splitFragment(u string) (string, string) {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i], u[i+1:]
	}
	return u, ""
}

func trimSlash(s string) string {
	for len(s) > 1 && strings.HasSuffix(s, "/") && !strings.HasSuffix(s, "://") {
		s = s[:len(s)-1]
	}
	return s
}
