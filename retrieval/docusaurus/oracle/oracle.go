// Package oracle holds what a real Docusaurus build published for the
// fixture sites in retrieval/docusaurus/testdata/sites: every route and
// every element id of the generated HTML. The goldens are written by
// TestRealBuild (which installs a pinned Docusaurus from npm and builds the
// fixtures) and read by the fast tests of every package that models a
// Docusaurus site, so the model is checked against real output without npm.
//
// Only tests import this package.
package oracle

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"ragscope/retrieval/docusaurus"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// DocusaurusVersion is the pinned version the goldens come from. The README
// (links/README.md) names it; bump both together.
const DocusaurusVersion = "3.5.2"

// Sites are the fixture site folders under SitesDir, one build each.
var Sites = []string{"book", "slash-true", "slash-false"}

// Golden is what one build of one fixture site published.
type Golden struct {
	// Docusaurus is the version that built it.
	Docusaurus string `json:"docusaurus"`
	// Site is the fixture's folder name.
	Site string `json:"site"`
	// Pages sorted by route.
	Pages []Page `json:"pages"`
}

// Page is one generated HTML page.
type Page struct {
	// Route is the path of the page's canonical URL ("/book/docs/intro").
	Route string `json:"route"`
	// File is the HTML file relative to the build folder.
	File string `json:"file"`
	// Doc is true for a doc page (it has Docusaurus's markdown container);
	// false for generated index pages and other routes.
	Doc bool `json:"doc"`
	// IDs are the id attributes (and <a name>) inside the doc's markdown
	// container, in document order: the anchors a citation can name.
	IDs []string `json:"ids"`
	// Headings are the h1..h6 inside the markdown container, with their id
	// ("" when the built page has none) and text content.
	Headings []Heading `json:"headings"`
}

// Heading is one built heading.
type Heading struct {
	Level int    `json:"level"`
	ID    string `json:"id"`
	Text  string `json:"text"`
}

// SitesDir is the absolute path of the fixture sites folder.
func SitesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "sites")
}

// GoldenPath is the committed golden of a fixture site.
func GoldenPath(site string) string {
	return filepath.Join(SitesDir(), site+".oracle.json")
}

// ReadGolden reads the committed golden of a fixture site.
func ReadGolden(site string) (*Golden, error) {
	b, err := os.ReadFile(GoldenPath(site))
	if err != nil {
		return nil, fmt.Errorf("read oracle golden: %w", err)
	}
	var g Golden
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("parse oracle golden %s: %w", GoldenPath(site), err)
	}
	return &g, nil
}

// Route returns the page served at route, or nil.
func (g *Golden) Route(route string) *Page {
	for i := range g.Pages {
		if g.Pages[i].Route == route {
			return &g.Pages[i]
		}
	}
	return nil
}

// ReadBuild reads every HTML page of a Docusaurus build folder. Pages
// without a canonical link and the not-found page (404.html) are skipped.
func ReadBuild(buildDir, site string) (*Golden, error) {
	g := &Golden{Docusaurus: DocusaurusVersion, Site: site}
	err := filepath.WalkDir(buildDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".html") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		page, err := ReadPage(f)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		rel, _ := filepath.Rel(buildDir, p)
		if page.Route == "" || rel == "404.html" {
			return nil
		}
		page.File = filepath.ToSlash(rel)
		g.Pages = append(g.Pages, *page)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read build: %w", err)
	}
	sort.Slice(g.Pages, func(i, j int) bool { return g.Pages[i].Route < g.Pages[j].Route })
	return g, nil
}

// ReadPage reads one generated page: its canonical route, and the ids and
// headings inside the markdown container (class "theme-doc-markdown").
func ReadPage(r io.Reader) (*Page, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	p := &Page{IDs: []string{}, Headings: []Heading{}}
	var walk func(n *html.Node, inDoc bool)
	walk = func(n *html.Node, inDoc bool) {
		if n.Type == html.ElementNode {
			if n.DataAtom == atom.Link && attr(n, "rel") == "canonical" {
				if u, err := url.Parse(attr(n, "href")); err == nil {
					p.Route = u.Path
				}
			}
			if !inDoc && hasClass(n, "theme-doc-markdown") {
				inDoc, p.Doc = true, true
			}
			if inDoc {
				if id := attr(n, "id"); id != "" {
					p.IDs = append(p.IDs, id)
				}
				if n.DataAtom == atom.A {
					if name := attr(n, "name"); name != "" {
						p.IDs = append(p.IDs, name)
					}
				}
				if lvl := docusaurus.HTMLHeadingLevel(n.DataAtom); lvl > 0 {
					p.Headings = append(p.Headings, Heading{Level: lvl, ID: attr(n, "id"), Text: headingText(n)})
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inDoc)
		}
	}
	walk(doc, false)
	return p, nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// headingText is the heading's text without the hash-link Docusaurus
// appends (an <a class="hash-link"> holding a zero-width space).
func headingText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && hasClass(n, "hash-link") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "\u200b", ""))
}

// WithSectionText returns a doc's source with a paragraph after every
// heading, so that the chunker makes a chunk of every section (most
// fixture sections are a bare heading). Text under a heading changes no
// route and no heading id, so the goldens of the unmodified fixtures still
// apply. mdx is as for docusaurus.ScanMarkdown.
func WithSectionText(src string, mdx bool) string {
	fm := docusaurus.SplitFrontMatter(src)
	var b strings.Builder
	b.WriteString(src[:len(src)-len(fm.Body)])
	scanned := docusaurus.ScanMarkdown(fm.Body, mdx)
	for i, l := range scanned {
		b.WriteString(l.Text + "\n")
		atx := l.Level > 0 && !(i+1 < len(scanned) && scanned[i+1].SetextPart)
		underline := l.SetextPart && (i+1 == len(scanned) || !scanned[i+1].SetextPart)
		if atx || underline {
			b.WriteString("\nText of this section, long enough to be a chunk of its own.\n\n")
		}
	}
	return b.String()
}
