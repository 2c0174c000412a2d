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

// The chunker reads headings through the same scanner as the link checker:
// a setext heading and a heading indented four spaces (MDX has no indented
// code; the real build gives both ids) start sections, "..." does not
// close front matter, "--- " does.
func TestChunkerSharesTheHeadingModel(t *testing.T) {
	src := "---\nslug: /x\n--- \n\n# Page\n\nIntro text here.\n\nSetext heading\n--------------\n\nSetext body text.\n\n    ## Indented heading\n\nIndented body text.\n"
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{})
	var got []string
	for _, c := range cs {
		got = append(got, c.Section+"|"+c.PageSlug)
	}
	want := []string{"|/x", "Setext heading|/x", "Indented heading|/x"}
	if len(got) != len(want) {
		t.Fatalf("sections = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sections = %q, want %q", got, want)
		}
	}
	if len(cs) > 1 && cs[1].Text != "## Setext heading\n\nSetext body text." {
		t.Errorf("setext section text = %q", cs[1].Text)
	}
	cs, _ = chunkOne(t, "docs/q.md", "---\nslug: /y\n...\n\n## A\n\nText of a.\n", ChunkOptions{})
	for _, c := range cs {
		if c.PageSlug != "" {
			t.Errorf("front matter closed by ... gave slug %q; Docusaurus does not read it", c.PageSlug)
		}
	}
}

// Every heading of the book fixture's intro page (numbers, punctuation,
// escapes, entities, emoji, HTML, duplicates, explicit ids, setext, Greek,
// İ) given text of its own: each section's citation must name an id the
// real build gave the page. Text under a heading does not change ids, so
// the golden of the unmodified page still applies.
func TestChunkCitationsEveryHeadingOfRealBuild(t *testing.T) {
	golden, err := oracle.ReadGolden("book")
	if err != nil {
		t.Fatal(err)
	}
	page := golden.Route("/book/docs/intro")
	src, err := os.ReadFile(filepath.Join(oracle.SitesDir(), "book", "docs", "intro.md"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := ChunkMarkdown("docs/intro.md", []byte(oracle.WithSectionText(string(src), true)), ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ub := retrieval.URLBuilder{DocsBase: "https://oracle.example.org/book/docs/", Style: docusaurus.SlugGitHub}
	ids := map[string]bool{}
	for _, id := range page.IDs {
		ids[id] = true
	}
	anchors := 0
	for i := range cs {
		u, err := url.Parse(ub.Cite(&cs[i]).URL)
		if err != nil {
			t.Fatal(err)
		}
		if u.Fragment == "" {
			continue
		}
		anchors++
		if !ids[u.Fragment] {
			t.Errorf("section %q cites #%s; the built page has no such id", cs[i].Section, u.Fragment)
		}
	}
	if anchors < 20 {
		t.Errorf("only %d anchored citations", anchors)
	}
}
