package retrieval

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/termsafe"
)

// TestCiteSlugsTheShownHeading: a payload heading holding terminal escape
// sequences is shown sanitised, and its anchor is built from that same
// sanitised text.
func TestCiteSlugsTheShownHeading(t *testing.T) {
	b := URLBuilder{DocsBase: "https://me.github.io/book/docs/"}
	for _, tc := range []struct{ section, anchor string }{
		{"Evil \x1b[5mblink\x1b[0m", "#evil-blink"},
		{"\x1b]0;title\x07Setup", "#setup"},
		{"Two\u202e words", "#two-words"},
	} {
		c := Chunk{DocPath: "docs/intro.md", Section: tc.section}
		got := b.Cite(&c).URL
		if !strings.HasSuffix(got, tc.anchor) {
			t.Errorf("Cite(%q).URL = %q, want the anchor %s", tc.section, got, tc.anchor)
		}
	}
}

// A heading's citation anchor is the site's heading id for every heading
// the real github-slugger was run on (the oracle's golden), the ones
// holding the emoji presentation selector (U+FE0F, which the id keeps)
// included: the fragment, percent-decoded as a browser decodes it, is the
// id, and the link is one termsafe.URL lets be copied and opened.
func TestCiteAnchorIsTheSitesHeadingID(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("docusaurus", "testdata", "slugger.oracle.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct{ Slugs []struct{ In, Slug string } }
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	golden.Slugs = append(golden.Slugs, struct{ In, Slug string }{"🤖\ufe0f Robots", "\ufe0f-robots"})
	selectors := 0
	ub := URLBuilder{DocsBase: "https://me.github.io/book/docs/"}
	for _, c := range golden.Slugs {
		if strings.TrimSpace(c.In) != c.In || c.Slug == "" || strings.ContainsAny(c.In, "{}`*_[]<>\\") {
			continue // not a heading's text (markdown trims it), or markup the builder reads as markdown
		}
		got := ub.Cite(&Chunk{DocPath: "docs/intro.md", Section: c.In}).URL
		if _, err := termsafe.URL(got); err != nil {
			t.Errorf("Cite(%+q) = %q: %v", c.In, got, err)
			continue
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("Cite(%+q) = %q: %v", c.In, got, err)
		}
		if u.Fragment != c.Slug {
			t.Errorf("Cite(%+q) = %q: the anchor reads %+q, the site's id is %+q", c.In, got, u.Fragment, c.Slug)
		}
		if strings.Contains(c.In, "\ufe0f") {
			selectors++
		}
	}
	if selectors < 2 {
		t.Fatalf("%d headings with U+FE0F checked", selectors)
	}
	if got := ub.Cite(&Chunk{DocPath: "docs/intro.md", Section: "🤖\ufe0f Robots"}).URL; got != "https://me.github.io/book/docs/intro#%EF%B8%8F-robots" {
		t.Errorf("Cite = %q", got)
	}
}
