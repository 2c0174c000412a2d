package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"ragscope/app"
	"ragscope/links"
	"ragscope/present"
)

type linksFlags struct {
	live        bool
	concurrency int
	json        bool
	sample      int
	maxList     int
	// wrongSection is the content check's policy: fail, warn or off.
	wrongSection string
}

func (a *App) newLinksCmd() *cobra.Command {
	var lf linksFlags
	cmd := &cobra.Command{
		Use:   "links",
		Short: "Check that every chunk's citation link (page and #anchor) resolves",
		Long: `Walk every chunk of the configured backend, build each citation URL exactly
as queries do, and check each distinct URL once: does the page exist, does
the #anchor exist on it?

By default URLs are checked against a local Docusaurus site folder (--site,
the folder holding docusaurus.config.js and docs/; for the demo backend the
embedded demo site): routes and heading ids are derived as Docusaurus
derives them (routeBasePath, front matter slug and id, number prefixes,
index pages, baseUrl, trailingSlash, github-slugger ids, {#custom-id}).
With --live the published site is fetched over HTTP instead (bounded
concurrency, per-host rate limit, retries).

For a broken link the report gives the closest existing anchor or page and,
when it can tell, the cause: a slug rule mismatch, a front matter slug, an
explicit heading id, a renamed page or a trailing-slash mismatch. It also
lists the pages and sections no chunk cites.

When a site model is available, each chunk's text is also looked up in the
site: a chunk whose cited anchor exists but whose text is in another
section is reported as "wrong section" with the anchor that holds it, and a
chunk whose text is mostly nowhere on the site (an edited page) as "text
not found". Both fail the audit unless --wrong-section=warn (or off).

Exit codes: 0 every link resolves (redirects are warnings), 4 a page or
anchor is missing, a check failed or a citation points at the wrong
section, 2 no site to check against or a
backend that cannot list its chunks, 3 backend unreachable.`,
		Example: `  ragscope links
  ragscope links --site ../my-book --slug-style simple
  ragscope links --live --concurrency 8 --json | jq '.summary'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if lf.sample < 0 || lf.concurrency < 0 {
				return Usagef("--sample and --concurrency must not be negative")
			}
			if _, err := links.ParseContentPolicy(lf.wrongSection); err != nil {
				return Usagef("%v", err)
			}
			return a.runLinks(cmd, lf)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&lf.live, "live", false, "check the published site over HTTP instead of the local site folder")
	f.IntVar(&lf.concurrency, "concurrency", 4, "URLs checked at once (live: requests in flight)")
	f.BoolVar(&lf.json, "json", false, "print the report as JSON (schema in links/README.md)")
	f.IntVar(&lf.sample, "sample", 3, "citing chunks listed per URL")
	f.IntVar(&lf.maxList, "max-list", 20, "uncited sections and content findings listed in human output (0 for all)")
	f.StringVar(&lf.wrongSection, "wrong-section", string(links.ContentFail), "citations whose section does not hold the chunk's text: fail, warn or off")
	return cmd
}

func (a *App) runLinks(cmd *cobra.Command, lf linksFlags) error {
	ctx := cmd.Context()
	be, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	if be.Walker == nil {
		return &ExitError{Code: ExitConfig, Err: fmt.Errorf("the %s backend cannot list its chunks, so its links cannot be audited", be.Kind)}
	}
	site, siteName, err := app.Site(be)
	if err != nil {
		return &ExitError{Code: ExitConfig, Err: fmt.Errorf("load site: %w", err)}
	}
	if site == nil && !lf.live {
		return &ExitError{Code: ExitConfig, Err: a.noSiteError()}
	}
	urls := be.Pipeline.URLs
	policy, _ := links.ParseContentPolicy(lf.wrongSection) // checked in RunE
	opts := links.AuditOptions{URLs: urls, Site: site, Sample: lf.sample, Concurrency: lf.concurrency, Mode: "local", SiteName: siteName, WrongSection: policy}
	if lf.sample == 0 {
		opts.Sample = -1
	}
	if lf.live {
		opts.Mode = "live"
		opts.SiteName = "published site"
		opts.Checker = links.NewLiveChecker(links.LiveOptions{Concurrency: lf.concurrency, Timeout: a.Cfg.Timeout})
	} else {
		opts.Checker = app.LocalChecker(site, urls)
	}
	prog := newProgress(a.Stderr)
	opts.Progress = prog.update
	rep, err := links.Audit(ctx, be.Walker, opts)
	prog.finish()
	if err != nil {
		return fmt.Errorf("links: %w", err)
	}
	if err := checkedNothing(rep, lf.live, a.Cfg.SiteURL); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if lf.json {
		if err := writeJSON(out, rep); err != nil {
			return err
		}
	} else {
		var hint string
		if site != nil && urls.DocsBase != "" && strings.TrimSuffix(urls.DocsBase, "/") != strings.TrimSuffix(site.DocsBase(), "/") && !strings.HasSuffix(site.DocsBase(), urls.DocsBase) {
			hint = fmt.Sprintf("Note: citations are built on %s but the site's docs live at %s (set --base-url).", urls.DocsBase, site.DocsBase())
		}
		writeLinksText(out, be, rep, hint, lf.maxList)
	}
	if !rep.Summary.Passed {
		return &ExitError{Code: ExitCheck}
	}
	return nil
}

// noSiteError says why there is no site to check links against and how to
// give one: a backend built from a plain docs folder (no
// docusaurus.config.* next to it) names no site.
func (a *App) noSiteError() error {
	how := "pass --site DIR, the folder that holds docs/ (with or without a docusaurus.config.*: without one, Docusaurus's defaults are assumed, served at --base-url when set), or set RAGSCOPE_SITE_DIR; or use --live to check the published site (with --site-url when the citations are site-relative)"
	var why string
	switch {
	case a.Cfg.IndexFile != "":
		why = fmt.Sprintf("the index %s was built from a docs folder with no docusaurus.config.* beside it, so it names no site", a.Cfg.IndexFile)
	case a.Cfg.DocsDir != "":
		docs := filepath.Clean(a.Cfg.DocsDir)
		why = fmt.Sprintf("the docs folder %s has no docusaurus.config.js beside it, so it names no site", docs)
		if filepath.Base(docs) == "docs" {
			how = fmt.Sprintf("pass --site %s (the folder that holds docs/; without a docusaurus.config.* Docusaurus's defaults are assumed, served at --base-url when set), or set RAGSCOPE_SITE_DIR; or use --live to check the published site", filepath.Dir(docs))
		}
	}
	if why == "" {
		return fmt.Errorf("no site to check against: %s", how)
	}
	return fmt.Errorf("no site to check against: %s: %s", why, how)
}

// checkedNothing fails a run that had URLs to check and could check none
// of them (every one "external"): that is a setting missing, not a pass
// (exit 2, naming the setting).
func checkedNothing(rep *links.Report, live bool, siteURL string) error {
	s := rep.Summary
	if s.URLs == 0 || s.External < s.URLs {
		return nil
	}
	relative := false
	for _, u := range rep.URLs {
		if strings.HasPrefix(u.URL, "/") {
			relative = true
			break
		}
	}
	var fix string
	switch {
	case live && relative && siteURL == "":
		fix = "the citation URLs are site-relative (" + cleanLine(rep.URLs[0].URL) + ") and no site URL is set: set --site-url (RAGSCOPE_SITE_URL, site.site_url in ragscope.toml) to the site's origin, e.g. https://me.github.io"
	case live:
		fix = "none of them is an http(s) URL on the published site: set --site-url (RAGSCOPE_SITE_URL) or --base-url (RAGSCOPE_BASE_URL) to the site the citations point at"
	default:
		fix = "none of them is on the site folder's site: set --base-url (RAGSCOPE_BASE_URL) to the URL of the site's docs route, or --site to the site the citations point at"
	}
	return &ExitError{Code: ExitConfig, Err: fmt.Errorf("links checked none of the %d citation URLs: %s", s.URLs, fix)}
}

// writeLinksText prints an audit report for people: problems with their
// cause and fix, redirects, coverage and a summary line.
func writeLinksText(w io.Writer, be *app.Backend, rep *links.Report, hint string, maxList int) {
	fmt.Fprintln(w, header(be))
	s := rep.Summary
	fmt.Fprintf(w, "Links: %d chunks · %d distinct URLs · checked against the %s (%s, %s slugs)\n", s.Chunks, s.URLs, cleanLine(rep.Site), rep.Mode, rep.SlugStyle)
	if hint != "" {
		fmt.Fprintln(w, hint)
	}
	for _, n := range rep.Warnings {
		fmt.Fprintln(w, "warning: "+cleanLine(n))
	}
	writeURLGroups(w, rep.URLs)
	if s.ChunksWithoutURL > 0 {
		fmt.Fprintf(w, "\n%d %s have no citation URL (neither a payload URL nor a doc path).\n", s.ChunksWithoutURL, present.Plural(s.ChunksWithoutURL, "chunk", "chunks"))
	}
	writeContentText(w, rep.Content, maxList)
	if rep.Coverage != nil {
		writeCoverageText(w, rep.Coverage, maxList)
	}
	verdict := linksVerdict(s)
	content := ""
	if rep.Content != nil {
		content = fmt.Sprintf(" · %d wrong section · %d text not found", s.WrongSection, s.TextNotFound)
	}
	fmt.Fprintf(w, "\n%d ok · %d redirected · %d page missing · %d anchor missing · %d errors · %d external%s · %s\n",
		s.OK, s.Redirected, s.PageMissing, s.AnchorMissing, s.Errors, s.External, content, verdict)
}

// writeURLGroups prints the URLs that need a look, by status: broken, then
// redirected (their causes said once per run of equal causes), then those
// not on the site.
func writeURLGroups(w io.Writer, urls []links.URLReport) {
	var problems, redirected, external []links.URLReport
	for _, u := range urls {
		switch {
		case u.Status.Failed():
			problems = append(problems, u)
		case u.Status == links.StatusRedirected:
			redirected = append(redirected, u)
		case u.Status == links.StatusExternal:
			external = append(external, u)
		}
	}
	if len(problems) > 0 {
		fmt.Fprintf(w, "\nBroken (%d):\n", len(problems))
		for _, u := range problems {
			writeURLReport(w, u)
		}
	}
	if len(redirected) > 0 {
		fmt.Fprintf(w, "\nRedirected (%d, warnings):\n", len(redirected))
		lastCause := ""
		for _, u := range redirected {
			// Redirects usually share one cause (the site's trailingSlash
			// setting): say it once per run of equal causes.
			if c := causeKind(u.Cause); c != lastCause {
				fmt.Fprintf(w, "  %s\n", cleanLine(c))
				lastCause = c
			}
			fmt.Fprintf(w, "    %s -> %s (%d %s)\n", cleanLine(u.URL), cleanLine(u.RedirectTo), u.Chunks, present.Plural(u.Chunks, "chunk", "chunks"))
		}
	}
	if len(external) > 0 {
		fmt.Fprintf(w, "\nNot on the site, not checked (%d):\n", len(external))
		for _, u := range external {
			fmt.Fprintf(w, "  %s (%d %s)\n", cleanLine(u.URL), u.Chunks, present.Plural(u.Chunks, "chunk", "chunks"))
		}
	}
}

// writeCoverageText prints which pages and sections no chunk cites, at
// most maxList sections (0: all).
func writeCoverageText(w io.Writer, c *links.Coverage, maxList int) {
	fmt.Fprintf(w, "\nCoverage: %d/%d pages and %d/%d sections are cited by some chunk.\n", c.CitedPages, c.Pages, c.CitedSections, c.Sections)
	if len(c.UncitedPages) > 0 {
		fmt.Fprintf(w, "  Pages no chunk cites (%d):\n", len(c.UncitedPages))
		for _, p := range c.UncitedPages {
			fmt.Fprintf(w, "    %s  (%s)\n", cleanLine(p.Route), cleanLine(p.Source))
		}
	}
	if len(c.UncitedSections) > 0 {
		fmt.Fprintf(w, "  Sections no chunk cites (%d):\n", len(c.UncitedSections))
		for i, sec := range c.UncitedSections {
			if maxList > 0 && i == maxList {
				fmt.Fprintf(w, "    … and %d more (--max-list 0 or --json for all)\n", len(c.UncitedSections)-maxList)
				break
			}
			fmt.Fprintf(w, "    %s#%s  %q\n", cleanLine(sec.Route), cleanLine(sec.Anchor), cleanLine(sec.Heading))
		}
	}
}

// linksVerdict is the audit's last word: PASSED, or FAILED with what
// failed it.
func linksVerdict(s links.Summary) string {
	verdict := "PASSED"
	if !s.Passed {
		var why []string
		if s.BrokenChunks > 0 || s.PageMissing+s.AnchorMissing+s.Errors > 0 {
			why = append(why, fmt.Sprintf("%d %s cite a broken link", s.BrokenChunks, present.Plural(s.BrokenChunks, "chunk", "chunks")))
		}
		if n := s.WrongSection + s.TextNotFound; n > 0 {
			why = append(why, fmt.Sprintf("%d %s cite a section that does not hold their text", n, present.Plural(n, "chunk", "chunks")))
		}
		verdict = "FAILED: " + strings.Join(why, "; ")
	}
	return verdict
}

func writeURLReport(w io.Writer, u links.URLReport) {
	label := strings.ReplaceAll(string(u.Status), "_", " ")
	fmt.Fprintf(w, "  %-14s %s\n", label, cleanLine(u.URL))
	if u.Cause != "" {
		fmt.Fprintf(w, "  %-14s %s\n", "", cleanLine(u.Cause))
	}
	if u.Error != "" {
		fmt.Fprintf(w, "  %-14s error: %s\n", "", cleanLine(u.Error))
	}
	if u.RedirectTo != "" {
		fmt.Fprintf(w, "  %-14s page redirects to %s\n", "", cleanLine(u.RedirectTo))
	}
	if u.Suggestion != "" {
		sug := u.Suggestion
		if u.Status == links.StatusAnchorMissing {
			if sug = u.SuggestedURL(); !strings.Contains(u.Suggestion, "/") {
				sug = "#" + u.Suggestion
			}
		}
		fmt.Fprintf(w, "  %-14s try %s\n", "", cleanLine(sug))
	}
	refs := make([]string, 0, len(u.Sample))
	for _, c := range u.Sample {
		r := c.ID
		if c.DocPath != "" {
			r += " " + c.DocPath
		}
		if c.Section != "" {
			r += fmt.Sprintf(" %q", c.Section)
		}
		refs = append(refs, cleanLine(r))
	}
	more := ""
	if u.Chunks > len(u.Sample) && len(u.Sample) > 0 {
		more = ", …"
	}
	fmt.Fprintf(w, "  %-14s cited by %d %s%s%s%s\n", "", u.Chunks, present.Plural(u.Chunks, "chunk", "chunks"), sep(refs), strings.Join(refs, "; "), more)
}

// causeKind is a redirect's cause without the page it names, so equal
// causes group.
func causeKind(cause string) string {
	if i := strings.Index(cause, " and serves "); i >= 0 {
		return cause[:i] + " (GitHub Pages answers 404 for the slash form)"
	}
	if i := strings.Index(cause, ", so hosts redirect to "); i >= 0 {
		return cause[:i]
	}
	if i := strings.Index(cause, ": the server redirects to "); i >= 0 {
		return cause[:i]
	}
	return cause
}

func sep(refs []string) string {
	if len(refs) == 0 {
		return ""
	}
	return ": "
}

// progress writes audit progress to stderr: a live line on a terminal,
// one line per finished phase otherwise.
type progress struct {
	w    io.Writer
	tty  bool
	mu   sync.Mutex
	last time.Time
	line bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		p.tty = term.IsTerminal(int(f.Fd()))
	}
	return p
}

func (p *progress) update(phase string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	what := "chunks read"
	if phase == links.PhaseCheck {
		what = "URLs checked"
	}
	count := fmt.Sprintf("%d", done)
	if total >= 0 {
		count = fmt.Sprintf("%d/%d", done, total)
	}
	finished := total >= 0 && done >= total
	if p.tty {
		if !finished && time.Since(p.last) < 100*time.Millisecond {
			return
		}
		p.last = time.Now()
		fmt.Fprintf(p.w, "\r\033[K%s %s", count, what)
		p.line = true
		return
	}
	if finished && done > 0 {
		fmt.Fprintf(p.w, "%s %s\n", count, what)
	}
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.line {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
