package links

import (
	"context"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/docusaurus/oracle"
	"ragscope/retrieval/store/local"
)

// TestChunkerURLBuilderAndCheckerAgree builds each real-build fixture site
// as the local backend does (chunker, then the corpus's URL builder) and
// loads it with the link checker's site model: for every chunk, the
// citation's path is exactly the route the site model gives the chunk's
// source file, that route is one the real build published, the cited
// anchor is on the built page, and the checker calls the citation ok.
func TestChunkerURLBuilderAndCheckerAgree(t *testing.T) {
	for _, name := range oracle.Sites {
		t.Run(name, func(t *testing.T) {
			golden, site := loadFixture(t, name)
			fsys := withSectionText(t, filepath.Join(oracle.SitesDir(), name), site)
			_, corpus, err := local.Build(context.Background(), fsys, local.BuildOptions{Chunk: local.ChunkOptions{DocsDir: site.Config.DocsPath}})
			if err != nil {
				t.Fatal(err)
			}
			chunks, _, err := local.ChunkDocs(t.Context(), fsys, local.ChunkOptions{DocsDir: site.Config.DocsPath})
			if err != nil {
				t.Fatal(err)
			}
			ub := corpus.URLBuilder(docusaurus.SlugGitHub)
			checker := NewLocalChecker(site)
			pages := map[string]bool{}
			for i := range chunks {
				c := &chunks[i]
				cite := ub.Cite(c)
				u, err := url.Parse(cite.URL)
				if err != nil {
					t.Fatalf("%s: %v", cite.URL, err)
				}
				source := path.Join(site.Config.DocsPath, c.DocPath[len("docs/"):])
				p := site.PageBySource(source)
				if p == nil {
					t.Errorf("%s: the site model has no page", source)
					continue
				}
				pages[source] = true
				if u.Path != p.Route {
					t.Errorf("%s: the chunk cites %s, the site model routes it to %s", source, u.Path, p.Route)
				}
				built := golden.Route(u.Path)
				if built == nil || built.Route != u.Path {
					t.Errorf("%s: %s is not a route of the real build", source, u.Path)
					continue
				}
				if u.Fragment != "" && !slices.Contains(built.IDs, u.Fragment) {
					t.Errorf("%s: the built page %s has no id %q", source, u.Path, u.Fragment)
				}
				if r := checker.Check(context.Background(), cite.URL); r.Status != StatusOK {
					t.Errorf("%s: the checker says %s for %s: %s", source, r.Status, cite.URL, r.Cause)
				}
			}
			if len(pages) < 3 {
				t.Errorf("only %d pages compared", len(pages))
			}
		})
	}
}

// withSectionText copies a fixture site into memory with a paragraph under
// every heading of its docs (oracle.WithSectionText), so that every section
// is a chunk.
func withSectionText(t *testing.T, dir string, site *Site) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			return err
		}
		if isDocFile(p) && strings.HasPrefix(p, site.Config.DocsPath+"/") {
			mdx := site.Config.MarkdownFormat != "detect" || strings.HasSuffix(p, ".mdx")
			b = []byte(oracle.WithSectionText(string(b), mdx))
		}
		out[p] = &fstest.MapFile{Data: b}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
