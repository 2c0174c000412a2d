package local

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/store/local/demo"
)

func TestDemoBaseURLMatchesConfig(t *testing.T) {
	cfg, _, ok := docusaurus.FindConfig(demo.Site(), ".")
	if !ok {
		t.Fatal("no docusaurus config in the demo site")
	}
	if cfg.DocsBase() != demo.DocsBaseURL || cfg.Origin() != demo.SiteURL {
		t.Errorf("config gives %s %s; demo constants say %s %s", cfg.DocsBase(), cfg.Origin(), demo.DocsBaseURL, demo.SiteURL)
	}
}

func TestOpenDemo(t *testing.T) {
	ctx := context.Background()
	ix, c, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("the demo has chunker warnings: %v", c.Warnings)
	}
	st, _ := ix.Stats(ctx)
	if st.Backend != BackendDemo || st.Status != retrieval.StatusReady || st.VectorSize != c.Embedder.Dim() {
		t.Errorf("stats: %+v", st)
	}
	pages := map[string]bool{}
	for _, ch := range ix.Chunks() {
		pages[ch.DocPath] = true
		if runeLen(ch.Text) > DefaultMaxChars {
			t.Errorf("%s: %d chars", ch.ID, runeLen(ch.Text))
		}
		if ch.URL != "" || ch.Title == "" || ch.ContentHash == "" || ch.TotalChunks == nil {
			t.Errorf("%s: incomplete chunk %+v", ch.ID, ch)
		}
	}
	mds, _ := fs.Glob(demo.Site(), "docs/*/*.md")
	if len(pages) < len(mds) {
		t.Errorf("%d pages indexed, the demo has at least %d", len(pages), len(mds))
	}
	p := retrieval.Pipeline{Embedder: c.Embedder, Store: ix, URLs: c.URLBuilder(docusaurus.SlugGitHub)}
	res, err := p.Retrieve(ctx, retrieval.Query{Question: "How are the links and joints of a humanoid described in URDF?", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range res.Hits {
		if strings.Contains(h.Chunk.DocPath, "urdf") {
			found = true
			if !strings.HasPrefix(h.Citation.URL, demo.DocsBaseURL+"module-1-ros2/") {
				t.Errorf("citation URL = %q", h.Citation.URL)
			}
		}
	}
	if !found {
		t.Errorf("no URDF page in the top 5: %v", res.Hits)
	}
}
