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

// writeProseSite writes a 100-page site whose 1,200 sections each hold
// about 120 words of distinct prose, and returns 10,000 chunks quoting
// them (each a run of about 80 words of one section), one in 10 cited at
// the next section, as the textbook chunker that assigns the heading
// before it emits the chunk does.
func writeProseSite(b *testing.B) (string, sliceWalker, int) {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "docusaurus.config.js"), []byte("module.exports = { url: 'https://bench.example.org', baseUrl: '/' };\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	vocab := strings.Fields("robot sensor lidar camera joint motor torque planner graph pose frame transform node topic message launch gazebo physics mass inertia friction wheel arm gripper policy reward episode agent vision depth point cloud filter kalman estimate noise control loop gain error signal")
	seed := uint32(7)
	word := func() string {
		seed = seed*1664525 + 1013904223
		return vocab[int(seed>>16)%len(vocab)]
	}
	type sec struct{ path, heading, text string }
	var secs []sec
	for m := range 10 {
		mdir := filepath.Join(dir, "docs", fmt.Sprintf("module-%d", m+1))
		if err := os.MkdirAll(mdir, 0o755); err != nil {
			b.Fatal(err)
		}
		for p := range 10 {
			name := fmt.Sprintf("lesson-%d.md", p+1)
			var sb strings.Builder
			sb.WriteString("# Lesson\n\n")
			for h := range 12 {
				heading := fmt.Sprintf("Topic %d %d", p, h)
				words := make([]string, 120)
				for i := range words {
					words[i] = word()
				}
				text := strings.Join(words, " ")
				sb.WriteString("## " + heading + "\n\n" + text + "\n\n")
				secs = append(secs, sec{"docs/module-" + fmt.Sprint(m+1) + "/" + name, heading, text})
			}
			if err := os.WriteFile(filepath.Join(mdir, name), []byte(sb.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	w := make(sliceWalker, 10000)
	wrong := 0
	for i := range w {
		k := i % len(secs)
		s := secs[k]
		words := strings.Fields(s.text)
		start := (i / len(secs) * 13) % 40
		text := "## " + s.heading + "\n\n" + strings.Join(words[start:start+80], " ")
		section := s.heading
		if i%10 == 0 && k+1 < len(secs) && secs[k+1].path == s.path {
			section = secs[k+1].heading
			wrong++
		}
		w[i] = retrieval.Chunk{ID: fmt.Sprint(i), DocPath: s.path, Section: section, Text: text}
	}
	return dir, w, wrong
}

// BenchmarkAuditContent10kChunks100Pages loads a 100-page site of prose
// and audits 10,000 chunks with text against it, the content check
// included (budget: well under 2 s per run).
func BenchmarkAuditContent10kChunks100Pages(b *testing.B) {
	dir, w, wrong := writeProseSite(b)
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
		if rep.Content.Checked != 10000 || rep.Summary.WrongSection != wrong || rep.Summary.TextNotFound != 0 {
			b.Fatalf("content: checked %d, wrong %d (want %d), not found %d", rep.Content.Checked, rep.Summary.WrongSection, wrong, rep.Summary.TextNotFound)
		}
	}
}
