package retrieval

import (
	"net/url"
	"path"
	"strings"

	"ragscope/termsafe"
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
	// TrailingSlash is the site's Docusaurus trailingSlash setting: "" when
	// undefined (index pages end in "/", others do not, as Docusaurus builds
	// them), "true" (every page ends in "/") or "false" (none does: on
	// GitHub Pages the slash form of such a site answers 404).
	TrailingSlash string
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
		// The anchor is slugged from the heading as it is shown: with its
		// terminal control sequences removed ("Evil \x1b[5mblink" is shown
		// "Evil blink" and cited #evil-blink, not #evil-5mblink).
		cit.URL, cit.Source = b.Build(c.DocPath, c.PageSlug, termsafe.Line(c.Section), c.HeadingID), "built"
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
// Steps, as Docusaurus routes docs: strip everything up to a
// "docs/" directory, strip ".md"/".mdx", strip number prefixes ("01-intro"
// -> "intro"), map "index"/"README" to its folder with a trailing slash,
// apply the front matter slug, prepend DocsBase, append "#anchor".
func (b URLBuilder) Build(docPath, pageSlug, section, headingID string) string {
	route := DocRoute(docPath, pageSlug)
	u := joinBase(b.DocsBase, route)
	switch b.TrailingSlash {
	case "true":
		if !strings.HasSuffix(u, "/") {
			u += "/"
		}
	case "false":
		if trimmed := strings.TrimRight(u, "/"); !strings.HasSuffix(trimmed, ":/") && trimmed != "" {
			u = trimmed
		}
	}
	anchor := headingID
	if anchor == "" {
		// A section title taken from markdown source may still carry its
		// explicit id ("Quality of Service {#qos}"), which is the anchor.
		section, anchor = SplitHeadingID(section)
	}
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
	dir = strings.TrimSuffix(dir, "/")
	// Docusaurus recognises an index doc by its name before number prefixes
	// are stripped, case-insensitively: "guides/Guides.md" and
	// "01-guides/01-guides.md" are folder routes, "01-guides/guides.md" is not.
	rawFile, rawDir := strings.ToLower(file), strings.ToLower(path.Base(dir))
	dir = StripPathNumberPrefixes(dir)
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
	if rawFile == "index" || rawFile == "readme" || (dir != "" && rawFile == rawDir) {
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

// StripNumberPrefix removes a Docusaurus number prefix ("01-intro" ->
// "intro", "3 - Setup" -> "Setup"), leaving date-like ("2021-01-31-x") and
// version-like ("1.1-intro") names alone, as Docusaurus does.
func StripNumberPrefix(name string) string {
	d := leadingDigits(name)
	if d == 0 {
		return name
	}
	// Version-like "1.1-x" and date-like "2021-01-31" / "31.01.2021" are kept:
	// digits, a separator, digits.
	if d < len(name) && isPrefixSep(name[d]) && leadingDigits(name[d+1:]) > 0 {
		return name
	}
	i := d
	for i < len(name) && name[i] == ' ' {
		i++
	}
	j := i
	for j < len(name) && isPrefixSep(name[j]) {
		j++
	}
	if j == i {
		return name
	}
	for j < len(name) && name[j] == ' ' {
		j++
	}
	// A name must follow the prefix, and not start with a separator.
	if j == len(name) || isPrefixSep(name[j]) {
		return name
	}
	return name[j:]
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func isPrefixSep(c byte) bool { return c == '-' || c == '_' || c == '.' }

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
