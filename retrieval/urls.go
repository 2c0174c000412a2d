package retrieval

import (
	"net/url"
	"path"
	"regexp"
	"strings"
)

// URLBuilder makes citation URLs the way a Docusaurus site on GitHub Pages
// publishes its docs.
type URLBuilder struct {
	// DocsBase is the URL of the docs route, e.g.
	// "https://owner.github.io/book/docs/" or "/book/docs/".
	DocsBase string
	// SiteURL is the site origin ("https://owner.github.io"), used to make
	// site-relative payload URLs ("/book/docs/x#y") absolute. Optional.
	SiteURL string
	// Style is the heading-anchor rule (default SlugGitHub).
	Style SlugStyle
}

// Cite returns the citation of c: the payload URL when it is absolute (or
// site-relative, joined to SiteURL when one is set), otherwise a URL built
// from the doc path, page slug and section.
func (b URLBuilder) Cite(c *Chunk) Citation {
	cit := Citation{Title: c.Title, Section: c.Section, DocPath: c.DocPath}
	switch {
	case isAbsoluteURL(c.URL):
		cit.URL, cit.Source = c.URL, "payload"
	case c.URL != "" && strings.HasPrefix(c.URL, "/"):
		cit.URL, cit.Source = joinSite(b.SiteURL, c.URL), "payload"
	case c.DocPath != "":
		cit.URL, cit.Source = b.Build(c.DocPath, c.PageSlug, c.Section, c.HeadingID), "built"
	case c.URL != "":
		cit.URL, cit.Source = c.URL, "payload"
	default:
		cit.Source = "none"
	}
	return cit
}

// Build returns the URL of a doc page and, when section is not empty, its
// anchor. docPath is the source file ("website/docs/module-1/intro.md");
// pageSlug is its front matter slug if known; headingID an explicit heading
// id that wins over the slug of section.
//
// Steps (seed 000, plus what Docusaurus does): strip everything up to a
// "docs/" directory, strip ".md"/".mdx", strip number prefixes ("01-intro"
// -> "intro"), map "index"/"README" to its folder with a trailing slash,
// apply the front matter slug, prepend DocsBase, append "#anchor".
func (b URLBuilder) Build(docPath, pageSlug, section, headingID string) string {
	route := DocRoute(docPath, pageSlug)
	u := joinBase(b.DocsBase, route)
	anchor := headingID
	if anchor == "" && strings.TrimSpace(section) != "" {
		style := b.Style
		if style == "" {
			style = SlugGitHub
		}
		anchor = style.Slug(HeadingText(section))
	}
	if anchor != "" {
		u += "#" + anchor
	}
	return u
}

// DocRoute is a doc's route relative to the docs base, as Docusaurus derives
// it: "module-1/01-intro.md" -> "module-1/intro"; "module-1/index.md" ->
// "module-1/"; a front matter slug replaces it ("/x/y" from the docs root,
// "y" relative to the doc's folder). The result never starts with "/".
func DocRoute(docPath, pageSlug string) string {
	p := strings.ReplaceAll(strings.TrimSpace(docPath), "\\", "/")
	p = strings.TrimPrefix(p, "./")
	if i := strings.LastIndex("/"+p, "/docs/"); i >= 0 {
		p = ("/" + p)[i+len("/docs/"):]
	}
	p = strings.TrimPrefix(p, "/")
	for _, ext := range []string{".mdx", ".md"} {
		if strings.HasSuffix(strings.ToLower(p), ext) {
			p = p[:len(p)-len(ext)]
			break
		}
	}
	dir, file := path.Split(p)
	dir = StripPathNumberPrefixes(strings.TrimSuffix(dir, "/"))
	file = StripNumberPrefix(file)
	if s := strings.TrimSpace(pageSlug); s != "" {
		if strings.HasPrefix(s, "/") {
			return strings.TrimPrefix(s, "/")
		}
		if dir == "" {
			return s
		}
		return dir + "/" + s
	}
	lower := strings.ToLower(file)
	if lower == "index" || lower == "readme" || (dir != "" && file == path.Base(dir)) {
		if dir == "" {
			return ""
		}
		return dir + "/"
	}
	if dir == "" {
		return file
	}
	return dir + "/" + file
}

var (
	numberPrefix       = regexp.MustCompile(`^(\d+)(\s*[-_.]+\s*)(.*)$`)
	ignoredPrefixDate  = regexp.MustCompile(`^((\d{2}|\d{4})[-_.]\d{2}([-_.](\d{2}|\d{4}))?)(.*)$`)
	ignoredPrefixVersn = regexp.MustCompile(`^(\d+[-_.]\d+)(.*)$`)
)

// StripNumberPrefix removes a Docusaurus number prefix ("01-intro" ->
// "intro", "3 - Setup" -> "Setup"), leaving date-like ("2021-01-31-x") and
// version-like ("1.1-intro") names alone, as Docusaurus does.
func StripNumberPrefix(name string) string {
	if ignoredPrefixDate.MatchString(name) || ignoredPrefixVersn.MatchString(name) {
		return name
	}
	if m := numberPrefix.FindStringSubmatch(name); m != nil {
		return m[3]
	}
	return name
}

// StripPathNumberPrefixes applies StripNumberPrefix to every path segment.
func StripPathNumberPrefixes(p string) string {
	if p == "" {
		return p
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = StripNumberPrefix(s)
	}
	return strings.Join(segs, "/")
}

func isAbsoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

func joinBase(base, route string) string {
	if base == "" {
		base = "/docs/"
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base + route
}

func joinSite(site, rel string) string {
	if site == "" {
		return rel
	}
	u, err := url.Parse(site)
	if err != nil || u.Scheme == "" {
		return rel
	}
	return u.Scheme + "://" + u.Host + rel
}
