package links

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"ragscope/retrieval/docusaurus/oracle"
)

// TestSiteModelMatchesRealBuild loads each oracle fixture site with the
// site model and compares it with what a real Docusaurus build published
// (the committed goldens): the same routes, exactly (trailing slash
// included), and on every doc page the same anchors.
func TestSiteModelMatchesRealBuild(t *testing.T) {
	for _, name := range oracle.Sites {
		t.Run(name, func(t *testing.T) {
			golden, site := loadFixture(t, name)
			modelRoutes := site.Routes()
			var builtRoutes []string
			for _, p := range golden.Pages {
				builtRoutes = append(builtRoutes, p.Route)
			}
			sort.Strings(modelRoutes)
			if strings.Join(modelRoutes, "\n") != strings.Join(builtRoutes, "\n") {
				t.Errorf("routes differ from the real build\nmodel:\n  %s\nbuilt:\n  %s", strings.Join(modelRoutes, "\n  "), strings.Join(builtRoutes, "\n  "))
			}
			for _, bp := range golden.Pages {
				p := site.PageByRoute(bp.Route)
				if p == nil {
					continue // reported above
				}
				if p.Route != bp.Route {
					t.Errorf("%s: model route %s", bp.Route, p.Route)
				}
				got := map[string]bool{}
				for _, a := range p.Anchors() {
					got[a] = true
				}
				want := map[string]bool{}
				for _, id := range bp.IDs {
					want[id] = true
				}
				for a := range got {
					if !want[a] {
						t.Errorf("%s (%s): the model has anchor %q, the built page does not", bp.Route, p.Source, a)
					}
				}
				for a := range want {
					if !got[a] {
						t.Errorf("%s (%s): the built page has id %q, the model does not", bp.Route, p.Source, a)
					}
				}
			}
		})
	}
}

// loadFixture reads a real-build fixture site's golden and models the site.
func loadFixture(t *testing.T, name string) (*oracle.Golden, *Site) {
	t.Helper()
	golden, err := oracle.ReadGolden(name)
	if err != nil {
		t.Fatal(err)
	}
	site, err := LoadSiteDir(filepath.Join(oracle.SitesDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return golden, site
}

// A cited heading that exists in the source but has no id on the built
// page (per the real build: the H1, a heading written as HTML) is broken,
// and the result says why and which URL works.
func TestUnanchoredHeadingsOnRealBuildFixture(t *testing.T) {
	site, err := LoadSiteDir(filepath.Join(oracle.SitesDir(), "book"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewLocalChecker(site)
	tests := []struct{ url, cause, suggested string }{
		{"https://oracle.example.org/book/docs/intro#welcome-to-the-book", `"Welcome to the Book" is the page's H1`, "https://oracle.example.org/book/docs/intro"},
		{"https://oracle.example.org/book/docs/intro#another-setext", `"Another setext" is the page's H1`, "https://oracle.example.org/book/docs/intro"},
		{"https://oracle.example.org/book/docs/components#raw-html-heading", `"Raw HTML heading" is written as HTML (<h2>) without an id attribute`, "https://oracle.example.org/book/docs/components"},
		{"https://oracle.example.org/book/docs/components#mdx-comment-id", "MDX comment id not supported", "https://oracle.example.org/book/docs/components#after--mdx-comment-id-"},
	}
	for _, tt := range tests {
		r := c.Check(context.Background(), tt.url)
		if r.Status != StatusAnchorMissing || !strings.Contains(r.Cause, tt.cause) || r.SuggestedURL() != tt.suggested {
			t.Errorf("Check(%s) = %s, cause %q, suggested %q; want anchor_missing, cause ~%q, suggested %q", tt.url, r.Status, r.Cause, r.SuggestedURL(), tt.cause, tt.suggested)
		}
	}
}

// On a trailingSlash: false site the real build writes x.html and no
// x/index.html, so the slash form of a route is served by no file: a
// static host answers 404 and the audit must fail it.
func TestTrailingSlashFalseSlashFormFails(t *testing.T) {
	golden, err := oracle.ReadGolden("slash-false")
	if err != nil {
		t.Fatal(err)
	}
	site, err := LoadSiteDir(filepath.Join(oracle.SitesDir(), "slash-false"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewLocalChecker(site)
	for _, p := range golden.Pages {
		if strings.HasSuffix(p.File, "/index.html") {
			t.Fatalf("%s: the build wrote %s; the fixture no longer shows the trailingSlash: false layout", p.Route, p.File)
		}
		r := c.Check(context.Background(), p.Route+"/")
		if r.Status != StatusPageMissing || !strings.Contains(r.Cause, "extra trailing slash") || r.Suggestion != "https://false.example.org"+p.Route {
			t.Errorf("Check(%s/) = %s, cause %q, suggestion %q", p.Route, r.Status, r.Cause, r.Suggestion)
		}
		if r := c.Check(context.Background(), p.Route); r.Status != StatusOK {
			t.Errorf("Check(%s) = %s", p.Route, r.Status)
		}
	}
}
