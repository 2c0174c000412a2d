package retrieval

import (
	"net/url"
	"strings"

	"ragscope/retrieval/docusaurus"
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
	Style docusaurus.SlugStyle
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
		// The anchor is slugged from the heading as the page shows it:
		// its terminal escape sequences removed ("Evil \x1b[5mblink" is
		// cited #evil-blink, not #evil-5mblink), every character it shows
		// kept, the emoji presentation selector too, which the site's
		// heading id keeps ("❤️ Love" is #%EF%B8%8F-love). The section is
		// sanitised where it is shown, not here.
		cit.URL, cit.Source = b.Build(c.DocPath, c.PageSlug, termsafe.Visible(c.Section), c.HeadingID), "built"
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
// apply the front matter slug, prepend DocsBase, append "#anchor" (its
// characters a link may not carry raw percent-encoded: termsafe.EscapeURL).
func (b URLBuilder) Build(docPath, pageSlug, section, headingID string) string {
	route := DocRoute(docPath, pageSlug)
	u := joinBase(b.DocsBase, route)
	u = withTrailingSlash(u, b.TrailingSlash)
	anchor := headingID
	if anchor == "" {
		// A section title taken from markdown source may still carry its
		// explicit id ("Quality of Service {#qos}"), which is the anchor.
		section, anchor = docusaurus.SplitHeadingID(section)
	}
	if anchor == "" && strings.TrimSpace(section) != "" {
		style := b.Style
		if style == "" {
			style = docusaurus.SlugGitHub
		}
		anchor = style.Slug(docusaurus.StripInlineMarkup(section))
	}
	if anchor != "" {
		// Percent-encoded where it holds what a link may not carry raw
		// (U+FE0F): browsers decode it back to the heading's id.
		u += "#" + termsafe.EscapeURL(anchor)
	}
	return u
}

// DocRoute is a doc's route relative to the docs base, as Docusaurus derives
// it (docusaurus.DocSlug): "module-1/01-intro.md" -> "module-1/intro";
// "module-1/index.md" -> "module-1/"; a front matter slug replaces it
// ("/x/y" from the docs root, "y" relative to the doc's folder). docPath
// may carry the folders above the docs folder ("website/docs/x.md"):
// everything up to the last "docs/" is dropped. The result never starts
// with "/".
func DocRoute(docPath, pageSlug string) string {
	slug, _ := docusaurus.DocSlug(DocsRelPath(docPath), pageSlug, "")
	return strings.TrimPrefix(slug, "/")
}

// DocsRelPath is a doc path's path inside its docs folder:
// "website/docs/m/x.md" -> "m/x.md" (everything up to the last "docs/" is
// dropped; backslashes become slashes).
func DocsRelPath(docPath string) string {
	p := strings.ReplaceAll(strings.TrimSpace(docPath), "\\", "/")
	if i := strings.LastIndex("/"+p, "/docs/"); i >= 0 {
		p = ("/" + p)[i+len("/docs/"):]
	}
	return p
}

// withTrailingSlash applies the trailingSlash setting to the path of u
// (absolute or site-relative), never to its fragment-free origin.
func withTrailingSlash(u, setting string) string {
	origin, p := "", u
	if i := strings.Index(u, "://"); i >= 0 {
		j := strings.IndexByte(u[i+3:], '/')
		if j < 0 {
			return u
		}
		origin, p = u[:i+3+j], u[i+3+j:]
	}
	return origin + docusaurus.ApplyTrailingSlash(p, "", setting)
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
