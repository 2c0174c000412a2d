package local

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/docusaurus/oracle"
)

// TestChunkCitationsExistInRealBuild chunks the oracle's book fixture as
// the local backend does and builds every chunk's citation URL: each must
// name a route and an anchor that the real Docusaurus build published (the
// goldens the link checker is tested against too).
func TestChunkCitationsExistInRealBuild(t *testing.T) {
	golden, err := oracle.ReadGolden("book")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(oracle.SitesDir(), "book")
	fsys := os.DirFS(dir)
	cfg, _, ok := docusaurus.FindConfig(fsys, ".")
	if !ok {
		t.Fatal("no config in the book fixture")
	}
	chunks, _, err := ChunkDocs(fsys, ChunkOptions{DocsDir: cfg.DocsPath})
	if err != nil {
		t.Fatal(err)
	}
	b := retrieval.URLBuilder{DocsBase: cfg.DocsBase(), SiteURL: cfg.URL, Style: retrieval.SlugGitHub, TrailingSlash: cfg.TrailingSlashSetting()}
	checked := 0
	for i := range chunks {
		c := &chunks[i]
		cite := b.Cite(c)
		u, err := url.Parse(cite.URL)
		if err != nil {
			t.Fatalf("%s: %v", cite.URL, err)
		}
		page := golden.Route(u.Path)
		if page == nil {
			t.Errorf("%s (%s): no such route in the real build", cite.URL, c.DocPath)
			continue
		}
		checked++
		if u.Fragment == "" {
			continue
		}
		found := false
		for _, id := range page.IDs {
			found = found || id == u.Fragment
		}
		if !found {
			t.Errorf("%s (%s, section %q): the built page has no id %q; it has %v", cite.URL, c.DocPath, c.Section, u.Fragment, page.IDs)
		}
	}
	if checked < 12 {
		t.Errorf("only %d citations checked", checked)
	}
}
