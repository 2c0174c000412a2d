package links

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

// sliceWalker is a retrieval.Walker over chunks in memory, in pages of 100.
type sliceWalker []retrieval.Chunk

func (w sliceWalker) Walk(ctx context.Context, fn func([]retrieval.Chunk, int) error) error {
	for i := 0; i < len(w); i += 100 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(w[i:min(i+100, len(w))], len(w)); err != nil {
			return err
		}
	}
	return nil
}

// chunksOf makes one chunk per page and one per anchored heading of site,
// as a chunker would (doc path, front matter slug, section, explicit id). With
// exactURL it stores the site's real URL in the payload instead.
func chunksOf(site *Site, exactURL bool) sliceWalker {
	var out sliceWalker
	for _, p := range site.Pages {
		if p.Draft {
			continue
		}
		c := retrieval.Chunk{ID: p.Source + "#", DocPath: p.Source, PageSlug: p.Slug, Title: p.Title}
		if exactURL {
			c.URL = site.URL(p, "")
		}
		out = append(out, c)
		for _, h := range p.Headings {
			if h.NoAnchor {
				continue // the page's H1: cited as the page
			}
			c := retrieval.Chunk{ID: p.Source + "#" + h.ID, DocPath: p.Source, PageSlug: p.Slug, Title: p.Title, Section: h.Text}
			if h.Explicit {
				c.HeadingID = h.ID
			}
			if exactURL {
				c.URL = site.URL(p, h.ID)
			}
			out = append(out, c)
		}
	}
	return out
}

func loadSite(t testing.TB, dir string) *Site {
	t.Helper()
	s, err := LoadSiteDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func audit(t *testing.T, site *Site, w retrieval.Walker, style docusaurus.SlugStyle) *Report {
	t.Helper()
	rep, err := Audit(context.Background(), w, AuditOptions{
		URLs:    site.URLBuilder(style),
		Checker: NewLocalChecker(site),
		Site:    site,
		Mode:    "local",
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func failures(rep *Report) map[string]URLReport {
	out := map[string]URLReport{}
	for _, u := range rep.URLs {
		if u.Status.Failed() {
			out[u.URL] = u
		}
	}
	return out
}

// The site was indexed; then one page and one heading were renamed. The
// audit against the renamed site reports exactly those.
func TestAuditRenamedPageAndHeading(t *testing.T) {
	before := loadSite(t, "testdata/site")
	after := loadSite(t, "testdata/renamed")
	rep := audit(t, after, chunksOf(before, true), docusaurus.SlugGitHub)

	want := map[string]Status{
		"https://example.org/book/guide/basics/topics":              StatusPageMissing,
		"https://example.org/book/guide/basics/topics#publishing":   StatusPageMissing,
		"https://example.org/book/guide/basics/topics#subscribing":  StatusPageMissing,
		"https://example.org/book/guide/basics/topics#example":      StatusPageMissing,
		"https://example.org/book/guide/basics/topics#publishing-1": StatusPageMissing,
		"https://example.org/book/guide/sim#why-simulate":           StatusAnchorMissing,
	}
	got := failures(rep)
	if len(got) != len(want) {
		t.Errorf("failures: got %d, want %d: %v", len(got), len(want), keys(got))
	}
	for u, st := range want {
		r, ok := got[u]
		if !ok || r.Status != st {
			t.Errorf("%s: got %+v, want %s", u, r.Result, st)
		}
	}
	if r := got["https://example.org/book/guide/basics/topics#subscribing"]; r.Suggestion != "https://example.org/book/guide/basics/topics-and-messages#subscribing" || !strings.Contains(r.Cause, "renamed") {
		t.Errorf("renamed page: suggestion %q cause %q", r.Suggestion, r.Cause)
	}
	if r := got["https://example.org/book/guide/sim#why-simulate"]; r.Suggestion != "why-simulation-matters" {
		t.Errorf("renamed heading: suggestion %q cause %q", r.Suggestion, r.Cause)
	}
	s := rep.Summary
	if s.Passed || s.PageMissing != 5 || s.AnchorMissing != 1 || s.BrokenChunks != 6 || s.Redirected != 0 {
		t.Errorf("summary = %+v", s)
	}
	if rep.URLs[0].Status != StatusPageMissing {
		t.Errorf("failures must sort first, got %s", rep.URLs[0].Status)
	}
	// Coverage: the renamed page and heading are now cited by nobody.
	cov := rep.Coverage
	var uncited []string
	for _, p := range cov.UncitedPages {
		uncited = append(uncited, p.Route)
	}
	if len(uncited) != 1 || uncited[0] != "/book/guide/basics/topics-and-messages" {
		t.Errorf("uncited pages = %v", uncited)
	}
	var secs []string
	for _, s := range cov.UncitedSections {
		secs = append(secs, s.Route+"#"+s.Anchor)
	}
	sort.Strings(secs)
	wantSecs := []string{
		"/book/guide/basics/topics-and-messages#example",
		"/book/guide/basics/topics-and-messages#publishing",
		"/book/guide/basics/topics-and-messages#publishing-1",
		"/book/guide/basics/topics-and-messages#subscribing",
		"/book/guide/sim#why-simulation-matters",
	}
	if strings.Join(secs, " ") != strings.Join(wantSecs, " ") {
		t.Errorf("uncited sections:\n got %v\nwant %v", secs, wantSecs)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Citations built by the URL builder (github style) from the chunks' doc
// paths: everything resolves except the page whose front matter id moves
// it.
func TestAuditBuiltGitHub(t *testing.T) {
	site := loadSite(t, "testdata/site")
	rep := audit(t, site, chunksOf(site, false), docusaurus.SlugGitHub)
	got := failures(rep)
	for u, r := range got {
		if !strings.HasPrefix(u, "https://example.org/book/guide/basics/actions#") && u != "https://example.org/book/guide/basics/actions" {
			t.Errorf("unexpected failure %s: %+v", u, r.Result)
		}
		if !strings.Contains(r.Cause, "front matter id mismatch") || !strings.Contains(r.Suggestion, "/basics/actions-guide") {
			t.Errorf("%s: cause %q suggestion %q", u, r.Cause, r.Suggestion)
		}
	}
	if len(got) != 2 {
		t.Errorf("failures = %v", keys(got))
	}
	red := 0
	for _, u := range rep.URLs {
		if u.Status == StatusRedirected {
			red++
			if !strings.Contains(u.Cause, "trailingSlash: false") || strings.HasSuffix(strings.SplitN(u.RedirectTo, "#", 2)[0], "/") {
				t.Errorf("redirect %s: %+v", u.URL, u.Result)
			}
		}
	}
	// The builder follows the site's trailingSlash: false, so index pages
	// are cited without the slash that would 404 on GitHub Pages.
	if red != 0 {
		t.Errorf("redirected = %d, want 0", red)
	}
}

// The simple slug rule breaks exactly the headings whose github id differs,
// and the audit says so.
func TestAuditSimpleSlugMismatch(t *testing.T) {
	site := loadSite(t, "testdata/site")
	rep := audit(t, site, chunksOf(site, false), docusaurus.SlugSimple)
	want := map[string]string{
		"https://example.org/book/guide/intro#1-1-intro":                             "11-intro",
		"https://example.org/book/guide/intro#sensors-actuators":                     "sensors--actuators",
		"https://example.org/book/guide/simulation/gazebo#urdf-vs-sdf":               "", // same under both rules
		"https://example.org/book/guide/intro#what-s-a-digital-twin":                 "whats-a-digital-twin",
		"https://example.org/book/guide/simulation/gazebo#step-1-describe-the-world": "",
	}
	got := failures(rep)
	for u, sug := range want {
		r, ok := got[u]
		if sug == "" {
			if ok {
				t.Errorf("%s should resolve: %+v", u, r.Result)
			}
			continue
		}
		if !ok || r.Status != StatusAnchorMissing || r.Suggestion != sug || !strings.Contains(r.Cause, "slug rule mismatch") {
			t.Errorf("%s: got %+v, want suggestion %s", u, r.Result, sug)
		}
	}
	// Duplicate "Setup" headings: simple style has no suffixes, so the
	// second and third chunks cite the first one's anchor, which exists.
	if _, ok := got["https://example.org/book/guide/intro#setup"]; ok {
		t.Error("#setup exists")
	}
}

func TestLocalCheckerCauses(t *testing.T) {
	site := loadSite(t, "testdata/site")
	c := NewLocalChecker(site)
	ctx := context.Background()
	tests := []struct {
		url    string
		status Status
		cause  string
		sug    string
	}{
		{"https://example.org/book/guide/intro#qos", StatusOK, "", ""},
		// Docusaurus 3.5.2 does not read {/* #id */} (real build, oracle book fixture).
		{"/book/guide/intro#voice-cmd", StatusAnchorMissing, "MDX comment id not supported", "voice-commands--voice-cmd-"},
		{"/book/guide/intro#voice-commands--voice-cmd-", StatusOK, "", ""},
		// The H1 has no id on the built page (oracle: every h1).
		{"/book/guide/intro#welcome-to-the-book", StatusAnchorMissing, "heading without an anchor: \"Welcome to the Book\" is the page's H1", "https://example.org/book/guide/intro"},
		{"/book/guide/intro#welcome", StatusAnchorMissing, "", ""},
		{"/book/guide/intro#custom-anchor", StatusOK, "", ""},
		{"/book/guide/intro", StatusOK, "", ""},
		// trailingSlash: false builds intro.html only: /intro/ is a 404
		// on GitHub Pages, so it fails the audit.
		{"/book/guide/intro/", StatusPageMissing, "extra trailing slash", "https://example.org/book/guide/intro"},
		// #reference is the page's H1, which has no id: the suggestion is
		// the page, not a URL that is still broken.
		{"/book/guide/ref/#reference", StatusPageMissing, "extra trailing slash", "https://example.org/book/guide/ref"},
		{"/book/guide/ref/#glossary", StatusPageMissing, "extra trailing slash", "https://example.org/book/guide/ref#glossary"},
		{"/book/guide/basics/services#calling-a-service", StatusPageMissing, "front matter slug mismatch", "https://example.org/book/guide/basics/custom-services#calling-a-service"},
		{"/book/guide/02-sim/gazebo", StatusPageMissing, "", ""},
		{"/book/guide/sim/gazebo", StatusPageMissing, "front matter slug mismatch", "https://example.org/book/guide/simulation/gazebo"},
		{"https://example.org/guide/intro#setup", StatusPageMissing, "baseUrl missing", "https://example.org/book/guide/intro#setup"},
		{"/book/guide/intro#quality-of-service", StatusAnchorMissing, "explicit heading id", "qos"},
		{"/book/guide/basics/topics#subscribing-1", StatusAnchorMissing, "duplicate suffix", "subscribing"},
		{"/book/guide/intro#setup-3", StatusAnchorMissing, "", "setup"},
		{"/book/guide/drafts", StatusPageMissing, "draft", ""},
		{"https://elsewhere.org/x", StatusExternal, "", ""},
		{"", StatusNoURL, "", ""},
		{"/book/guide/intro#%D0%BF", StatusAnchorMissing, "", ""},
	}
	for _, tt := range tests {
		r := c.Check(ctx, tt.url)
		if r.Status != tt.status || !strings.Contains(r.Cause, tt.cause) || (tt.sug != "" && r.Suggestion != tt.sug) {
			t.Errorf("Check(%q) = %+v; want %s, cause ~%q, suggestion %q", tt.url, r, tt.status, tt.cause, tt.sug)
		}
	}
}

func TestReportJSONStable(t *testing.T) {
	site := loadSite(t, "testdata/site")
	rep := audit(t, site, append(chunksOf(site, true), retrieval.Chunk{ID: "orphan"}), docusaurus.SlugGitHub)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mode", "docs_base", "slug_style", "summary", "urls", "coverage"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report JSON lacks %q", k)
		}
	}
	s := m["summary"].(map[string]any)
	for _, k := range []string{"chunks", "chunks_without_url", "urls", "ok", "redirected", "page_missing", "anchor_missing", "errors", "external", "broken_chunks", "passed"} {
		if _, ok := s[k]; !ok {
			t.Errorf("summary JSON lacks %q", k)
		}
	}
	if !rep.Summary.Passed || rep.Summary.ChunksWithoutURL != 1 {
		t.Errorf("summary = %+v", rep.Summary)
	}
	u := m["urls"].([]any)[0].(map[string]any)
	for _, k := range []string{"url", "status", "chunks", "sample"} {
		if _, ok := u[k]; !ok {
			t.Errorf("url JSON lacks %q", k)
		}
	}
}

func TestAuditProgressAndCancel(t *testing.T) {
	site := loadSite(t, "testdata/site")
	w := chunksOf(site, true)
	var mu sync.Mutex
	last := map[string][2]int{}
	_, err := Audit(context.Background(), w, AuditOptions{
		URLs: site.URLBuilder(""), Checker: NewLocalChecker(site),
		Progress: func(phase string, done, total int) {
			mu.Lock()
			last[phase] = [2]int{done, total}
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if l := last[PhaseWalk]; l[0] != len(w) || l[1] != len(w) {
		t.Errorf("walk progress = %v, want %d/%d", l, len(w), len(w))
	}
	if l := last[PhaseCheck]; l[0] != l[1] || l[0] == 0 {
		t.Errorf("check progress = %v", l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Audit(ctx, w, AuditOptions{Checker: NewLocalChecker(site)}); err == nil {
		t.Error("cancelled audit must fail")
	}
	if _, err := Audit(context.Background(), w, AuditOptions{}); err != ErrNoChecker {
		t.Errorf("err = %v", err)
	}
}

// The embedded demo textbook, when present: chunks made from its own
// headings (as a chunker would) and cited with the github rule all resolve.
func TestDemoSiteSelfConsistent(t *testing.T) {
	const dir = "../retrieval/store/local/demo/site"
	if _, err := os.Stat(dir + "/docusaurus.config.js"); err != nil {
		t.Skip("demo site not present")
	}
	site := loadSite(t, dir)
	if len(site.Pages) == 0 {
		t.Fatal("demo site has no pages")
	}
	rep := audit(t, site, chunksOf(site, false), docusaurus.SlugGitHub)
	if !rep.Summary.Passed {
		for _, u := range rep.URLs {
			if u.Status.Failed() {
				t.Errorf("%s: %s (%s)", u.URL, u.Status, u.Cause)
			}
		}
	}
}
