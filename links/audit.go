package links

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

// Audit phases reported to AuditOptions.Progress.
const (
	// PhaseWalk counts chunks read from the collection or index.
	PhaseWalk = "walk"
	// PhaseCheck counts distinct URLs checked.
	PhaseCheck = "check"
)

// AuditOptions configure Audit.
type AuditOptions struct {
	// URLs builds each chunk's citation exactly as the retrieval pipeline
	// does (URLBuilder.Cite).
	URLs retrieval.URLBuilder
	// Checker checks each distinct URL (a LocalChecker or a LiveChecker).
	Checker Checker
	// Site, when set, enables the coverage report (pages and sections no
	// chunk cites).
	Site *Site
	// Concurrency is how many distinct URLs are checked at once (default 8;
	// a LiveChecker bounds its own requests further).
	Concurrency int
	// Sample is how many citing chunks are kept per URL (0 means 3,
	// negative none).
	Sample int
	// Progress, when set, is called with the phase (PhaseWalk, PhaseCheck),
	// the work done and the total (-1 when unknown). It is called from
	// Audit's goroutine for PhaseWalk and from checking goroutines, one
	// call at a time, for PhaseCheck.
	Progress func(phase string, done, total int)
	// WrongSection is the content check's policy when Site is set: for
	// each chunk, does the cited section hold the chunk's text? Empty is
	// ContentFail.
	WrongSection ContentPolicy
	// Mode and SiteName are copied into the report ("local"/"live", and
	// the site folder or URL).
	Mode     string
	SiteName string
}

// Schema names the version of the audit's JSON document.
const Schema = "ragscope.links/v1"

// Report is the outcome of an audit. Its JSON form is documented in
// links/README.md and is stable: fields may be added, not renamed.
type Report struct {
	// Schema versions the JSON document (Schema); fields may be added,
	// never renamed or removed.
	Schema string `json:"schema"`
	// Mode is "local" (against a site folder) or "live" (over HTTP).
	Mode string `json:"mode"`
	// Site is the site folder or URL checked against.
	Site string `json:"site,omitempty"`
	// DocsBase and SlugStyle are the URL builder's settings.
	DocsBase  string  `json:"docs_base"`
	SlugStyle string  `json:"slug_style"`
	Summary   Summary `json:"summary"`
	// URLs has one entry per distinct citation URL: failures first, then
	// redirected, external and ok; more-cited first within a status.
	URLs []URLReport `json:"urls"`
	// Coverage is present when a site model was available.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Content is the content check (does the cited section hold the
	// chunk's text?), present when a site model was available and the
	// check was not turned off.
	Content *ContentReport `json:"content,omitempty"`
	// Warnings come from loading the site (bad front matter, duplicate
	// routes, config values that could not be read).
	Warnings []string `json:"warnings,omitempty"`
}

// Summary counts an audit's outcome.
type Summary struct {
	// Chunks is the number of chunks walked.
	Chunks int `json:"chunks"`
	// ChunksWithoutURL had neither a payload URL nor a doc path.
	ChunksWithoutURL int `json:"chunks_without_url"`
	// URLs is the number of distinct citation URLs (the empty URL excluded).
	URLs int `json:"urls"`
	// Per-status counts of distinct URLs.
	OK            int `json:"ok"`
	Redirected    int `json:"redirected"`
	PageMissing   int `json:"page_missing"`
	AnchorMissing int `json:"anchor_missing"`
	Errors        int `json:"errors"`
	External      int `json:"external"`
	// BrokenChunks is the number of chunks whose citation fails.
	BrokenChunks int `json:"broken_chunks"`
	// WrongSection counts chunks whose cited anchor exists but whose text
	// lives in another section; TextNotFound chunks whose text is mostly
	// nowhere on the site (see Report.Content).
	WrongSection int `json:"wrong_section"`
	TextNotFound int `json:"text_not_found"`
	// Passed is true when no URL is page_missing, anchor_missing or error
	// and, unless the content policy is warn or off, no chunk is
	// wrong_section or text_not_found.
	Passed bool `json:"passed"`
}

// URLReport is one distinct citation URL, its verdict and who cites it.
type URLReport struct {
	Result
	// Chunks is how many chunks cite the URL.
	Chunks int `json:"chunks"`
	// Sample lists up to AuditOptions.Sample of them.
	Sample []ChunkRef `json:"sample"`
}

// ChunkRef identifies a citing chunk.
type ChunkRef struct {
	ID      string `json:"id"`
	DocPath string `json:"doc_path,omitempty"`
	Section string `json:"section,omitempty"`
}

// Coverage tells which pages and sections no chunk cites, i.e. that the
// chatbot can never cite. A page counts as cited when a resolving URL
// reaches it (with any anchor or none); a section (a heading of level 2 or
// deeper; level 1 is the page title) when a resolving URL has its anchor.
type Coverage struct {
	Pages           int          `json:"pages"`
	CitedPages      int          `json:"cited_pages"`
	Sections        int          `json:"sections"`
	CitedSections   int          `json:"cited_sections"`
	UncitedPages    []PageRef    `json:"uncited_pages"`
	UncitedSections []SectionRef `json:"uncited_sections"`
}

// PageRef names a page.
type PageRef struct {
	Route  string `json:"route"`
	Source string `json:"source"`
	Title  string `json:"title,omitempty"`
}

// SectionRef names a heading of a page.
type SectionRef struct {
	Route   string `json:"route"`
	Source  string `json:"source"`
	Anchor  string `json:"anchor"`
	Heading string `json:"heading"`
	Level   int    `json:"level"`
}

// ErrNoChecker is returned by Audit without a Checker.
var ErrNoChecker = errors.New("links: audit needs a checker")

type urlAgg struct {
	n      int
	sample []ChunkRef
}

// citations are the distinct citation URLs of a walk, in first-seen
// order, each with how many chunks cite it and a sample of them.
type citations struct {
	aggs  map[string]*urlAgg
	order []string
	// chunks is the number of chunks walked.
	chunks int
}

// Audit walks every chunk of w, computes its citation URL with opts.URLs
// (as the pipeline does), checks each distinct URL once with opts.Checker
// and reports per URL, with summary counts and, when opts.Site is set,
// coverage.
func Audit(ctx context.Context, w retrieval.Walker, opts AuditOptions) (*Report, error) {
	if opts.Checker == nil {
		return nil, ErrNoChecker
	}
	if opts.Sample == 0 {
		opts.Sample = 3
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	style := opts.URLs.Style
	if style == "" {
		style = docusaurus.SlugGitHub
	}
	rep := &Report{Schema: Schema, Mode: opts.Mode, Site: opts.SiteName, DocsBase: opts.URLs.DocsBase, SlugStyle: string(style)}
	if opts.Site != nil {
		rep.Warnings = append(append(rep.Warnings, opts.Site.Config.Notes...), opts.Site.Warnings...)
	}

	var content *contentChecker
	if opts.Site != nil && opts.WrongSection != ContentOff {
		if opts.WrongSection == "" {
			opts.WrongSection = ContentFail
		}
		var err error
		if content, err = newContentChecker(ctx, opts.Site, opts.WrongSection, siteHosts(opts)); err != nil {
			return nil, err
		}
	}
	cits, err := walkCitations(ctx, w, opts, content, progress)
	if err != nil {
		return nil, fmt.Errorf("walk chunks: %w", err)
	}
	rep.Summary.Chunks = cits.chunks

	results := checkAll(ctx, opts, cits.order, progress)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("check links: %w", err)
	}
	if u, ok := opts.Checker.(interface{ Unreachable() error }); ok {
		if err := u.Unreachable(); err != nil {
			return nil, err
		}
	}
	rep.tally(cits, results)
	if content != nil {
		rep.Content = content.rep
		s := &rep.Summary
		s.WrongSection, s.TextNotFound = content.rep.WrongSection, content.rep.TextNotFound
		if opts.WrongSection == ContentFail && s.WrongSection+s.TextNotFound > 0 {
			s.Passed = false
		}
	}
	sortURLs(rep.URLs)
	if opts.Site != nil {
		rep.Coverage = computeCoverage(opts.Site, rep.URLs)
	}
	return rep, nil
}

// walkCitations walks every chunk of w and gathers the distinct URLs its
// chunks cite (opts.URLs.Cite, as the pipeline does), checking each
// chunk's content on the way when content is set.
func walkCitations(ctx context.Context, w retrieval.Walker, opts AuditOptions, content *contentChecker, progress func(string, int, int)) (citations, error) {
	cits := citations{aggs: map[string]*urlAgg{}}
	err := w.Walk(ctx, func(page []retrieval.Chunk, total int) error {
		for i := range page {
			c := &page[i]
			cit := opts.URLs.Cite(c)
			a, ok := cits.aggs[cit.URL]
			if !ok {
				a = &urlAgg{}
				cits.aggs[cit.URL] = a
				cits.order = append(cits.order, cit.URL)
			}
			a.n++
			ref := ChunkRef{ID: c.ID, DocPath: c.DocPath, Section: c.Section}
			if len(a.sample) < opts.Sample {
				a.sample = append(a.sample, ref)
			}
			if content != nil {
				content.check(ref, c.Text, cit.URL)
			}
		}
		cits.chunks += len(page)
		progress(PhaseWalk, cits.chunks, total)
		return ctx.Err()
	})
	return cits, err
}

// tally fills the report's URLs (results[i] is cits.order[i]'s) and
// counts them by status in its summary; it passes when no URL failed.
func (rep *Report) tally(cits citations, results []Result) {
	rep.URLs = make([]URLReport, 0, len(cits.order))
	s := &rep.Summary
	for i, u := range cits.order {
		a := cits.aggs[u]
		if a.sample == nil {
			a.sample = []ChunkRef{}
		}
		ur := URLReport{Result: results[i], Chunks: a.n, Sample: a.sample}
		rep.URLs = append(rep.URLs, ur)
		if u == "" {
			s.ChunksWithoutURL = a.n
			continue
		}
		s.URLs++
		switch ur.Status {
		case StatusOK:
			s.OK++
		case StatusRedirected:
			s.Redirected++
		case StatusPageMissing:
			s.PageMissing++
		case StatusAnchorMissing:
			s.AnchorMissing++
		case StatusExternal:
			s.External++
		default:
			s.Errors++
		}
		if ur.Status.Failed() {
			s.BrokenChunks += a.n
		}
	}
	s.Passed = s.PageMissing+s.AnchorMissing+s.Errors == 0
}

// sortURLs puts failures first, then redirected, external and ok; the
// more-cited first within a status, then by URL.
func sortURLs(urls []URLReport) {
	sort.SliceStable(urls, func(i, j int) bool {
		a, b := urls[i], urls[j]
		if ra, rb := statusRank(a.Status), statusRank(b.Status); ra != rb {
			return ra < rb
		}
		if a.Chunks != b.Chunks {
			return a.Chunks > b.Chunks
		}
		return a.URL < b.URL
	})
}

// siteHosts are the hosts whose URLs are the site's: the local checker's,
// or the config's url host.
func siteHosts(opts AuditOptions) map[string]bool {
	if lc, ok := opts.Checker.(*LocalChecker); ok {
		return lc.hosts
	}
	hosts := map[string]bool{}
	if u, err := url.Parse(opts.Site.Config.URL); err == nil && u.Host != "" {
		hosts[strings.ToLower(u.Host)] = true
	}
	return hosts
}

func statusRank(s Status) int {
	switch s {
	case StatusPageMissing:
		return 0
	case StatusAnchorMissing:
		return 1
	case StatusError:
		return 2
	case StatusRedirected:
		return 3
	case StatusExternal:
		return 4
	case StatusNoURL:
		return 5
	}
	return 6
}

// checkAll checks urls with a bounded pool; results[i] is urls[i]'s.
func checkAll(ctx context.Context, opts AuditOptions, urls []string, progress func(string, int, int)) []Result {
	results := make([]Result, len(urls))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	progress(PhaseCheck, 0, len(urls))
	for range min(opts.Concurrency, max(len(urls), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if ctx.Err() != nil {
					continue // cancelled: the jobs left are drained, not checked
				}
				if urls[i] == "" {
					results[i] = Result{Status: StatusNoURL}
				} else {
					results[i] = opts.Checker.Check(ctx, urls[i])
				}
				mu.Lock()
				done++
				progress(PhaseCheck, done, len(urls))
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range urls {
		// A waiting worker and the cancel can both be ready (select
		// picks either): no URL is handed out once the audit is cancelled.
		if ctx.Err() != nil {
			break
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return results
}

// computeCoverage lists the site's pages and sections that no resolving
// citation reaches.
func computeCoverage(site *Site, urls []URLReport) *Coverage {
	citedPage := map[*Page]bool{}
	citedAnchor := map[*Page]map[string]bool{}
	for _, ur := range urls {
		if ur.Status != StatusOK && ur.Status != StatusRedirected && ur.Status != StatusAnchorMissing {
			continue
		}
		u, err := url.Parse(ur.URL)
		if err != nil {
			continue
		}
		p := site.PageByRoute(u.Path)
		if p == nil {
			continue
		}
		citedPage[p] = true
		if u.Fragment != "" && p.HasAnchor(u.Fragment) {
			if citedAnchor[p] == nil {
				citedAnchor[p] = map[string]bool{}
			}
			citedAnchor[p][u.Fragment] = true
		}
	}
	cov := &Coverage{UncitedPages: []PageRef{}, UncitedSections: []SectionRef{}}
	for _, p := range site.Pages {
		if p.Draft || p.Generated || site.PageByRoute(p.Route) != p {
			continue
		}
		cov.Pages++
		if citedPage[p] {
			cov.CitedPages++
		} else {
			cov.UncitedPages = append(cov.UncitedPages, PageRef{Route: p.Route, Source: p.Source, Title: p.Title})
		}
		// parents[l] is the cited state of the open heading of level l.
		var parents [7]bool
		for _, h := range p.Headings {
			cited := !h.NoAnchor && citedAnchor[p][h.ID]
			underCited := false
			for l := 1; l < h.Level; l++ {
				underCited = underCited || parents[l]
			}
			for l := h.Level; l < len(parents); l++ {
				parents[l] = false
			}
			parents[h.Level] = cited || underCited
			// Only sections that can be cited and have text of their own
			// count; a subsection whose parent is cited is covered by the
			// parent's chunk.
			if h.Level < 2 || h.NoAnchor || !h.OwnText {
				continue
			}
			cov.Sections++
			if cited || underCited {
				cov.CitedSections++
				continue
			}
			cov.UncitedSections = append(cov.UncitedSections, SectionRef{Route: p.Route, Source: p.Source, Anchor: h.ID, Heading: h.Text, Level: h.Level})
		}
	}
	return cov
}
