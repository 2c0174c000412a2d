package links

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

// writeBenchSite writes a 100-page site (10 modules of 10 pages, 12
// headings each, a few with explicit ids and front matter slugs) and
// returns its folder and 10,000 chunks citing it, 2% of them with a
// misspelt section.
func writeBenchSite(b *testing.B) (string, sliceWalker) {
	b.Helper()
	dir := b.TempDir()
	cfg := "module.exports = { url: 'https://bench.example.org', baseUrl: '/book/', trailingSlash: false,\n presets: [['classic', { docs: { routeBasePath: 'docs' } }]] };\n"
	if err := os.WriteFile(filepath.Join(dir, "docusaurus.config.js"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	type sec struct{ path, slug, section, id string }
	var secs []sec
	for m := range 10 {
		mdir := filepath.Join(dir, "docs", fmt.Sprintf("%02d-module-%d", m+1, m+1))
		if err := os.MkdirAll(mdir, 0o755); err != nil {
			b.Fatal(err)
		}
		for p := range 10 {
			name := fmt.Sprintf("%02d-lesson-%d.md", p+1, p+1)
			var sb strings.Builder
			slug := ""
			sb.WriteString("---\ntitle: Lesson\n")
			if p == 3 {
				slug = fmt.Sprintf("custom-%d", m)
				sb.WriteString("slug: " + slug + "\n")
			}
			sb.WriteString("---\n\nIntro text.\n\n")
			for h := range 12 {
				text := fmt.Sprintf("%d.%d Topic %d: Sensors & Actuators", p+1, h+1, h)
				id := ""
				if h == 5 {
					id = fmt.Sprintf("custom-%d", h)
					sb.WriteString("## " + text + " {#" + id + "}\n\nBody.\n\n```bash\n# not a heading\n```\n\n")
				} else {
					sb.WriteString("## " + text + "\n\nBody text for the section.\n\n")
				}
				secs = append(secs, sec{"docs/" + filepath.Base(mdir) + "/" + name, slug, text, id})
			}
			if err := os.WriteFile(filepath.Join(mdir, name), []byte(sb.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	w := make(sliceWalker, 10000)
	for i := range w {
		s := secs[i%len(secs)]
		section := s.section
		if i%50 == 0 {
			section += " (old)"
		}
		w[i] = retrieval.Chunk{ID: fmt.Sprint(i), DocPath: s.path, PageSlug: s.slug, Section: section, HeadingID: s.id}
	}
	return dir, w
}

// BenchmarkAudit10kChunks100Pages loads a 100-page site from disk and
// audits 10,000 chunks against it (budget: under 2 s per run).
func BenchmarkAudit10kChunks100Pages(b *testing.B) {
	dir, w := writeBenchSite(b)
	b.ResetTimer()
	for b.Loop() {
		site, err := LoadSiteDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := Audit(context.Background(), w, AuditOptions{
			URLs: site.URLBuilder(docusaurus.SlugGitHub), Checker: NewLocalChecker(site), Site: site,
		})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Summary.Chunks != 10000 || rep.Summary.AnchorMissing == 0 || rep.Summary.PageMissing != 0 {
			b.Fatalf("summary = %+v", rep.Summary)
		}
	}
}
