package links

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"ragscope/retrieval/docusaurus"
)

// Status is the outcome of checking one citation URL.
type Status string

// Statuses. OK and Redirected resolve; PageMissing, AnchorMissing and Error
// fail an audit; External and NoURL are reported but not checked.
const (
	// StatusOK: the page exists and so does the anchor (or there is none).
	StatusOK Status = "ok"
	// StatusRedirected: the page is reached through a redirect or another
	// canonical form (e.g. a trailing-slash mismatch); RedirectTo says where.
	StatusRedirected Status = "redirected"
	// StatusPageMissing: no page is served at the URL's path.
	StatusPageMissing Status = "page_missing"
	// StatusAnchorMissing: the page exists but has no element with the id.
	StatusAnchorMissing Status = "anchor_missing"
	// StatusError: the check itself failed (network error, 5xx after retries).
	StatusError Status = "error"
	// StatusExternal: the URL is not on the checked site.
	StatusExternal Status = "external"
	// StatusNoURL: the chunk has no citation URL at all.
	StatusNoURL Status = "no_url"
)

// String returns the status's wire name.
func (s Status) String() string { return string(s) }

// Failed reports whether the status fails an audit.
func (s Status) Failed() bool {
	return s == StatusPageMissing || s == StatusAnchorMissing || s == StatusError
}

// Result is the verdict on one citation URL.
type Result struct {
	// URL is the URL as cited.
	URL    string `json:"url"`
	Status Status `json:"status"`
	// Page is the route (local) or final URL (live) of the page reached,
	// when it exists.
	Page string `json:"page,omitempty"`
	// Source is the page's source file (local checks).
	Source string `json:"source,omitempty"`
	// Anchor is the URL's fragment, decoded.
	Anchor string `json:"anchor,omitempty"`
	// RedirectTo is the canonical URL when Status is redirected.
	RedirectTo string `json:"redirect_to,omitempty"`
	// Suggestion is the closest existing anchor (anchor_missing) or page URL
	// (page_missing), when there is one. For an anchor that names a heading
	// the built page gives no id (an H1, an HTML heading), it is the page's
	// URL without an anchor. SuggestedURL resolves both forms.
	Suggestion string `json:"suggestion,omitempty"`
	// Cause explains a failure when it can be told (slug rule mismatch,
	// front matter slug, renamed page, trailing slash).
	Cause string `json:"cause,omitempty"`
	// HTTPStatus is the final response's status code (live checks).
	HTTPStatus int `json:"http_status,omitempty"`
	// Error is the check's own error (StatusError).
	Error string `json:"error,omitempty"`
}

// Checker checks one citation URL. Implementations are safe for concurrent
// use and honour ctx.
type Checker interface {
	Check(ctx context.Context, rawURL string) Result
}

// LocalChecker checks URLs against a Site modelled from its source folder.
type LocalChecker struct {
	site *Site
	// hosts accepted as the site's own (lower case, with port if any).
	hosts map[string]bool
}

// NewLocalChecker returns a checker for site. URLs on the config's url host
// and on extraHosts (e.g. the host of a configured docs base URL) are
// checked; a site-relative URL is always checked; other hosts are external.
func NewLocalChecker(site *Site, extraHosts ...string) *LocalChecker {
	c := &LocalChecker{site: site, hosts: map[string]bool{}}
	if u, err := url.Parse(site.Config.URL); err == nil && u.Host != "" {
		c.hosts[strings.ToLower(u.Host)] = true
	}
	for _, h := range extraHosts {
		if h != "" {
			c.hosts[strings.ToLower(h)] = true
		}
	}
	return c
}

// Site returns the checked site.
func (c *LocalChecker) Site() *Site { return c.site }

// Check resolves rawURL against the site model. It does no I/O. A
// suggested URL is itself checked before it is offered: one whose anchor
// the suggested page lacks is offered without it (or with the anchor that
// page suggests), one whose page is missing is not offered.
func (c *LocalChecker) Check(_ context.Context, rawURL string) Result {
	r := c.check(rawURL)
	if r.Suggestion == "" || !strings.Contains(r.SuggestedURL(), "/") {
		return r
	}
	sug := c.check(r.SuggestedURL())
	switch {
	case !sug.Status.Failed():
	case sug.Status == StatusAnchorMissing:
		page, _, _ := strings.Cut(r.SuggestedURL(), "#")
		r.Suggestion = page
		// A known cause (slug rule, explicit id) gives the right anchor;
		// a closest-match guess on another page than the cited one does not.
		if fix := sug.SuggestedURL(); fix != "" && !strings.HasPrefix(sug.Cause, "no heading with the id") && !c.check(fix).Status.Failed() {
			r.Suggestion = fix
		}
		r.Cause += fmt.Sprintf("; %s has no anchor #%s (%s)", sug.Page, sug.Anchor, sug.Cause)
	default:
		r.Suggestion = ""
	}
	return r
}

func (c *LocalChecker) check(rawURL string) Result {
	r := Result{URL: rawURL}
	if strings.TrimSpace(rawURL) == "" {
		r.Status = StatusNoURL
		return r
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		r.Status, r.Cause = StatusPageMissing, fmt.Sprintf("not a valid URL: %v", err)
		return r
	}
	r.Anchor = u.Fragment
	if u.Host != "" && len(c.hosts) > 0 && !c.hosts[strings.ToLower(u.Host)] {
		r.Status = StatusExternal
		r.Cause = fmt.Sprintf("host %s is not the site's (%s)", u.Host, c.site.Config.URL)
		return r
	}
	if u.Host == "" && !strings.HasPrefix(u.Path, "/") {
		r.Status = StatusPageMissing
		r.Cause = "relative URL without a leading slash; citations must be absolute or site-relative"
		return r
	}
	p := c.site.PageByRoute(u.Path)
	if p == nil || p.Draft {
		r.Status = StatusPageMissing
		r.Suggestion, r.Cause = c.diagnosePage(u)
		return r
	}
	r.Page, r.Source = p.Route, p.Source
	r.Status = StatusOK
	if u.Path != p.Route && c.site.Config.TrailingSlash != nil {
		if !*c.site.Config.TrailingSlash {
			// The build writes x.html and no x/index.html: a static host
			// (GitHub Pages) answers 404 for /x/ and does not redirect.
			r.Status = StatusPageMissing
			r.Suggestion = c.site.URL(p, u.Fragment)
			r.Cause = "extra trailing slash: the site sets trailingSlash: false, so the build has " + p.Route + ".html and nothing at " + u.Path + "; GitHub Pages and other static hosts answer 404"
			return r
		}
		r.Status = StatusRedirected
		r.RedirectTo = c.site.URL(p, u.Fragment)
		r.Cause = "trailing slash missing: the site sets trailingSlash: true, so hosts redirect to " + p.Route
	}
	if u.Fragment == "" || p.HasAnchor(u.Fragment) {
		return r
	}
	r.Status = StatusAnchorMissing
	if sugg, cause, ok := diagnoseUnanchored(u.Fragment, p); ok {
		r.Suggestion, r.Cause = sugg, cause
		if sugg == "" {
			r.Suggestion = c.site.URL(p, "")
		}
		return r
	}
	r.Suggestion, r.Cause = diagnoseAnchor(u.Fragment, p.Headings, p.Anchors())
	return r
}

// SuggestedURL is the whole URL to cite instead, or "": the suggested
// anchor on the checked page, or the suggested URL as is.
func (r Result) SuggestedURL() string {
	if r.Suggestion == "" {
		return ""
	}
	if r.Status != StatusAnchorMissing || strings.HasPrefix(r.Suggestion, "/") || strings.Contains(r.Suggestion, "://") {
		return r.Suggestion
	}
	page, _, _ := strings.Cut(r.URL, "#")
	return page + "#" + r.Suggestion
}

// diagnoseUnanchored explains an anchor that names a heading the page has
// but the built page gives no id: an H1 (the theme renders h1 without an
// id), a heading written as HTML without an id attribute, or a heading
// whose MDX comment id ({/* #x */}) Docusaurus 3.5 does not read. An empty
// suggestion means the page without an anchor.
func diagnoseUnanchored(anchor string, p *Page) (suggestion, cause string, ok bool) {
	for _, h := range p.Headings {
		if strings.Contains(h.Text, "#"+anchor) && h.ID != anchor && !h.NoAnchor {
			return h.ID, fmt.Sprintf("MDX comment id not supported: Docusaurus 3.5 does not read {/* #%s */} as a heading id, so %q has the id %s; write {#%s} to keep the anchor", anchor, h.Text, h.ID, anchor), true
		}
		if !h.NoAnchor || (anchor != h.ID && anchor != docusaurus.GitHubSlug(h.Text) && anchor != docusaurus.SimpleSlug(h.Text)) {
			continue
		}
		if h.Level == 1 {
			return "", fmt.Sprintf("heading without an anchor: %q is the page's H1, which Docusaurus renders without an id; link the page without an anchor", h.Text), true
		}
		return "", fmt.Sprintf("heading without an anchor: %q is written as HTML (<h%d>) without an id attribute, so the built page has no anchor for it; link the page without an anchor, or write it as a markdown heading", h.Text, h.Level), true
	}
	return "", "", false
}

// diagnosePage explains a missing page: a citation built from the file path
// of a page that has a front matter slug or id, a URL missing the baseUrl,
// or else the closest existing route (a renamed page).
func (c *LocalChecker) diagnosePage(u *url.URL) (suggestion, cause string) {
	s := c.site
	if p := s.byPath[trimSlash(u.Path)]; p != nil {
		what := "front matter slug"
		if p.Slug == "" {
			what = "front matter id"
		}
		return s.URL(p, u.Fragment), fmt.Sprintf("%s mismatch: %s is served at %s, not at its file path", what, p.Source, p.Route)
	}
	if s.Config.BaseURL != "/" && !strings.HasPrefix(u.Path, s.Config.BaseURL) {
		if p := s.PageByRoute(strings.TrimSuffix(s.Config.BaseURL, "/") + u.Path); p != nil {
			return s.URL(p, u.Fragment), "baseUrl missing: the site is served under " + s.Config.BaseURL
		}
	}
	for _, p := range s.Pages {
		if p.Draft && trimSlash(p.Route) == trimSlash(u.Path) {
			return "", fmt.Sprintf("draft page: %s has draft: true and is not published", p.Source)
		}
	}
	if len(s.Pages) == 0 {
		return "", "the site has no pages"
	}
	routes := make([]string, 0, len(s.Pages))
	for _, p := range s.Pages {
		if !p.Draft {
			routes = append(routes, trimSlash(p.Route))
		}
	}
	best, ok := closestRoute(trimSlash(u.Path), routes)
	if !ok {
		return "", "no page at " + u.Path
	}
	p := s.PageByRoute(best)
	anchor := u.Fragment
	if anchor != "" && !p.HasAnchor(anchor) {
		anchor = ""
	}
	return s.URL(p, anchor), fmt.Sprintf("no page at %s; closest existing page is %s (%s), renamed or moved?", u.Path, p.Route, p.Source)
}

// diagnoseAnchor explains a missing anchor on a page with these headings
// and anchors: a heading whose id differs from the anchor because the
// anchor was made with another slug rule (the cause names it) or ignores an
// explicit id, or else the closest existing anchor. The suggestion is
// always one of anchors (or "" when none fits): a fix that is still broken
// is never offered.
func diagnoseAnchor(anchor string, heads []Heading, anchors []string) (suggestion, cause string) {
	has := make(map[string]bool, len(anchors))
	for _, a := range anchors {
		has[a] = true
	}
	for _, h := range heads {
		if h.ID == anchor || h.NoAnchor || !has[h.ID] {
			continue
		}
		gh := docusaurus.GitHubSlug(h.Text)
		// An id that is not the heading's github slug (with or without a
		// duplicate suffix) was written by hand; live pages do not say so.
		explicit := h.Explicit || (h.ID != gh && !strings.HasPrefix(h.ID, gh+"-"))
		if explicit {
			if sameSlug(anchor, h.Text) {
				return h.ID, fmt.Sprintf("explicit heading id: %q has the id %s, not its slug %s", h.Text, h.ID, anchor)
			}
			if marked := h.Text + " {#" + h.ID + "}"; sameSlug(anchor, marked) {
				return h.ID, fmt.Sprintf("explicit heading id: %q has the id %s; %s slugs the {#%s} marker as part of the heading text", h.Text, h.ID, anchor, h.ID)
			}
			continue
		}
		if rule, ok := slugRule(anchor, h.Text); ok {
			return h.ID, fmt.Sprintf("slug rule mismatch: the page's id for %q is %s (github-slugger%s), not %s (%s)", h.Text, h.ID, githubNote(h.Text), anchor, rule)
		}
	}
	if m := dupSuffix.FindStringSubmatch(anchor); m != nil && has[m[1]] {
		return m[1], fmt.Sprintf("duplicate suffix: the page has only one heading with the id %s", m[1])
	}
	best, ok := closest(anchor, anchors)
	if !ok || !has[best] {
		if len(anchors) == 0 {
			return "", "the page has no headings"
		}
		return "", fmt.Sprintf("no heading with the id %s and none like it", anchor)
	}
	return best, fmt.Sprintf("no heading with the id %s; closest is %s (heading renamed?)", anchor, best)
}

// slugRule tells which slug rule other than github-slugger's turns text
// into anchor: the simple rule, "&" written as "and", or, more loosely,
// the same words with other separators. ok is false when anchor is not a
// slug of text.
func slugRule(anchor, text string) (rule string, ok bool) {
	switch {
	case anchor == docusaurus.GitHubSlug(text):
		return "github-slugger without the page's duplicate suffix", true
	case anchor == docusaurus.SimpleSlug(text):
		return "the simple rule: each run of other characters is one hyphen", true
	case strings.Contains(text, "&") && anchor == docusaurus.SimpleSlug(strings.ReplaceAll(text, "&", " and ")):
		return `another rule: "&" written as "and"`, true
	case sameSlug(anchor, text):
		return "another rule: the same words, other separators", true
	}
	return "", false
}

// sameSlug reports whether anchor holds the same words as text, whatever
// separators either uses ("&", "and" and "amp" do not count as words).
func sameSlug(anchor, text string) bool {
	a, t := slugWords(anchor), slugWords(text)
	return a != "" && a == t
}

func slugWords(s string) string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if w != "and" && w != "amp" {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// githubNote names what github-slugger does to text that the simple rule
// does not: the characters it deletes, keeping the spaces around them
// (so "A & B" is a--b).
func githubNote(text string) string {
	var gone []string
	seen := map[rune]bool{}
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '-' || r == '_' || seen[r] {
			continue
		}
		seen[r] = true
		gone = append(gone, strconv.QuoteRune(r))
	}
	if len(gone) == 0 {
		return ""
	}
	return ": deletes " + strings.Join(gone, ", ") + " and turns each space into a hyphen"
}
