package links

import (
	"context"
	"ragscope/retrieval/docusaurus"
	"testing"
	"testing/fstest"
)

// Coverage counts only sections that can be cited and have text of their
// own: an H2 followed directly by its subsections, the H1, an
// HTML heading and a subsection inside a cited parent's chunk are not
// "sections no chunk cites".
func TestCoverageCountsCitableSectionsWithText(t *testing.T) {
	fsys := fstest.MapFS{
		"docusaurus.config.js":   {Data: []byte(`module.exports = {url: 'https://x.org', baseUrl: '/'};`)},
		"docs/p.md":              {Data: []byte("# Title\n\nIntro text.\n\n## Empty parent\n\n### Child one\n\nText one.\n\n#### Grandchild\n\nText in the child's chunk.\n\n### Child two\n\nText two.\n\n<h2>HTML heading</h2>\n\nText.\n\n## Setext parent\n\nSetext child\n------------\n\nText.\n")},
		"docs/q.md":              {Data: []byte("# Other\n\n## Lonely\n\nNobody cites this.\n")},
		"docs/c/_category_.json": {Data: []byte(`{"label": "C", "link": {"type": "generated-index", "slug": "/c-index"}}`)},
		"docs/c/a.md":            {Data: []byte("# A\n\nText.\n")},
	}
	site, err := LoadSite(fsys)
	if err != nil {
		t.Fatal(err)
	}
	w := sliceWalker{
		{ID: "1", URL: "https://x.org/docs/p#child-one"},
		{ID: "2", URL: "https://x.org/docs/c/a"},
	}
	rep, err := Audit(context.Background(), w, AuditOptions{URLs: site.URLBuilder(docusaurus.SlugGitHub), Checker: NewLocalChecker(site), Site: site, Mode: "local"})
	if err != nil {
		t.Fatal(err)
	}
	cov := rep.Coverage
	// Sections with text: child-one (cited), grandchild (in child-one's
	// chunk), child-two, setext-child, lonely. Not: empty-parent,
	// setext-parent (no text of their own), the H1s, the HTML heading.
	if cov.Sections != 5 || cov.CitedSections != 2 {
		t.Errorf("sections %d cited %d, want 5 and 2", cov.Sections, cov.CitedSections)
	}
	var got []string
	for _, s := range cov.UncitedSections {
		got = append(got, s.Route+"#"+s.Anchor)
	}
	want := []string{"/docs/p#child-two", "/docs/p#setext-child", "/docs/q#lonely"}
	if len(got) != len(want) {
		t.Fatalf("uncited = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("uncited = %v, want %v", got, want)
		}
	}
	// The generated index is a route but holds no text to cite.
	if site.PageByRoute("/docs/c-index") == nil || cov.Pages != 3 {
		t.Errorf("generated index route %v, pages %d (want 3)", site.PageByRoute("/docs/c-index") != nil, cov.Pages)
	}
}

// A heading whose only content before its first subheading is a thematic
// break has no text of its own: the chunker gives it no chunk (its
// subsection's chunk carries it), so no chunk can cite it and coverage
// does not count it as a section no chunk cites.
func TestCoverageSkipsAParentWithOnlyAThematicBreak(t *testing.T) {
	for _, rule := range []string{"---", "***", "___", "- - -"} {
		fsys := fstest.MapFS{
			"docusaurus.config.js": {Data: []byte(`module.exports = {url: 'https://x.org', baseUrl: '/'};`)},
			"docs/p.md":            {Data: []byte("# Title\n\nIntro.\n\n## Parent\n\n" + rule + "\n\n### Child\n\nText.\n\n## Closing\n\n" + rule + "\n\nClosing text.\n")},
		}
		site, err := LoadSite(fsys)
		if err != nil {
			t.Fatal(err)
		}
		w := sliceWalker{{ID: "1", URL: "https://x.org/docs/p#child"}, {ID: "2", URL: "https://x.org/docs/p#closing"}}
		rep, err := Audit(context.Background(), w, AuditOptions{URLs: site.URLBuilder(docusaurus.SlugGitHub), Checker: NewLocalChecker(site), Site: site, Mode: "local"})
		if err != nil {
			t.Fatal(err)
		}
		if cov := rep.Coverage; cov.Sections != 2 || cov.CitedSections != 2 || len(cov.UncitedSections) != 0 {
			t.Errorf("%q: sections %d cited %d, uncited %+v; want child and closing, both cited", rule, cov.Sections, cov.CitedSections, cov.UncitedSections)
		}
	}
}
