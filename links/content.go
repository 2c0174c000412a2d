package links

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode"

	"ragscope/internal/lazyre"
	"ragscope/retrieval/docusaurus"
)

// ContentPolicy says what the content check does with a chunk whose cited
// section does not hold its text.
type ContentPolicy string

// Content policies (the --wrong-section flag).
const (
	// ContentFail counts wrong-section and text-not-found chunks and fails
	// the audit (the default).
	ContentFail ContentPolicy = "fail"
	// ContentWarn counts and lists them without failing the audit.
	ContentWarn ContentPolicy = "warn"
	// ContentOff skips the content check.
	ContentOff ContentPolicy = "off"
)

// ParseContentPolicy reads a --wrong-section value ("" is ContentFail).
func ParseContentPolicy(s string) (ContentPolicy, error) {
	switch p := ContentPolicy(strings.ToLower(strings.TrimSpace(s))); p {
	case "":
		return ContentFail, nil
	case ContentFail, ContentWarn, ContentOff:
		return p, nil
	}
	return "", fmt.Errorf("--wrong-section %q: use fail, warn or off", s)
}

// Content verdicts of one chunk.
const (
	// VerdictWrongSection: the cited anchor exists but the chunk's text
	// lives in another section (FoundURL).
	VerdictWrongSection = "wrong_section"
	// VerdictTextNotFound: most of the chunk's text is nowhere on the site
	// (the page was edited after indexing, or the text is not from it).
	VerdictTextNotFound = "text_not_found"
)

// shingleSize is the number of words of a shingle: long enough that a
// match is the same passage, short enough for short chunks.
const shingleSize = 5

// ContentReport is the outcome of the content check: does the section a
// chunk's citation points at hold the chunk's text?
type ContentReport struct {
	// Policy is the --wrong-section policy applied.
	Policy ContentPolicy `json:"policy"`
	// Checked counts chunks whose citation resolves to a page of the site
	// and that have at least shingleSize words.
	Checked int `json:"checked"`
	// OK counts checked chunks whose cited section holds their text.
	OK int `json:"ok"`
	// WrongSection and TextNotFound count the findings of each verdict.
	WrongSection int `json:"wrong_section"`
	TextNotFound int `json:"text_not_found"`
	// Findings lists every wrong-section and text-not-found chunk.
	Findings []ContentFinding `json:"findings"`
}

// ContentFinding is one chunk whose citation does not lead to its text.
type ContentFinding struct {
	// Verdict is VerdictWrongSection or VerdictTextNotFound.
	Verdict string `json:"verdict"`
	ChunkRef
	// URL is the chunk's citation; Anchor its fragment ("" for the page).
	URL    string `json:"url"`
	Anchor string `json:"anchor,omitempty"`
	// CitedShare is the part of the chunk's text (as 5-word shingles found
	// on the site) that the cited section holds; FoundShare the part of the
	// chunk's shingles found anywhere on the site.
	CitedShare float64 `json:"cited_share"`
	FoundShare float64 `json:"found_share"`
	// FoundAnchor, FoundHeading, FoundSource and FoundURL say where the
	// text lives (wrong_section only); FoundAnchor is "" when that is the
	// page's top (text before the first anchored heading).
	FoundAnchor  string  `json:"found_anchor,omitempty"`
	FoundHeading string  `json:"found_heading,omitempty"`
	FoundSource  string  `json:"found_source,omitempty"`
	FoundURL     string  `json:"found_url,omitempty"`
	FoundIn      float64 `json:"found_in_share,omitempty"`
}

// loc is where a shingle starts: a page and its own-section index (0 is
// the text before the first heading, i+1 the text of Headings[i] up to the
// next heading).
type loc struct {
	page, sec int32
}

// contentIndex maps every 5-word shingle of the site's pages to where it
// occurs: first holds where it first occurs (most shingles occur once),
// more the further places of the others.
type contentIndex struct {
	pages []*Page
	first map[uint64]loc
	more  map[uint64][]loc
}

// add records that shingle h occurs at l.
func (ix *contentIndex) add(h uint64, l loc) {
	f, ok := ix.first[h]
	switch {
	case !ok:
		ix.first[h] = l
	case f == l:
	default:
		m := ix.more[h]
		if len(m) > 0 && m[len(m)-1] == l {
			return
		}
		ix.more[h] = append(m, l)
	}
}

// at calls fn for every place shingle h occurs; it reports whether there
// is one.
func (ix *contentIndex) at(h uint64, fn func(loc)) bool {
	f, ok := ix.first[h]
	if !ok {
		return false
	}
	fn(f)
	for _, l := range ix.more[h] {
		fn(l)
	}
	return true
}

// contentOf builds (once) the site's shingle index. A build that ctx
// stops returns ctx's error and keeps nothing, so a later call builds it
// whole.
func (s *Site) contentOf(ctx context.Context) (*contentIndex, error) {
	s.contentMu.Lock()
	defer s.contentMu.Unlock()
	if s.content != nil {
		return s.content, nil
	}
	ix := &contentIndex{first: map[uint64]loc{}, more: map[uint64][]loc{}}
	for _, p := range s.Pages {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("index the site's text: %w", err)
		}
		if p.Generated || p.Draft {
			continue
		}
		pi := int32(len(ix.pages))
		ix.pages = append(ix.pages, p)
		toks, secs := pageTokens(p)
		_, hs := shingles(toks, nil, nil)
		for i, h := range hs {
			ix.add(h, loc{pi, secs[i]})
		}
	}
	s.content = ix
	return ix, nil
}

// pageTokens returns the page's words in order, each with the own-section
// it belongs to. Heading lines count as the start of their section; code,
// admonition bodies and HTML are words like any other; fences, ESM lines
// and markup are not.
func pageTokens(p *Page) ([]string, []int32) {
	headAt := make(map[int]int32, len(p.Headings))
	for i, h := range p.Headings {
		headAt[h.at] = int32(i + 1)
	}
	var toks []string
	var secs []int32
	cur := int32(0)
	for i, l := range docusaurus.ScanMarkdown(p.body, p.mdx) {
		if s, ok := headAt[i]; ok {
			cur = s
		}
		if l.Fence {
			continue
		}
		text := l.Text
		if !l.InFence && mdxESM.MatchString(text) {
			continue
		}
		for _, t := range matchWords(text, l.InFence) {
			toks = append(toks, t)
			secs = append(secs, cur)
		}
	}
	return toks, secs
}

var (
	mdxESM        = lazyre.New(`^(import|export)\s`)
	bareURL       = lazyre.New(`https?://\S+`)
	linkTarget    = lazyre.New(`\]\([^)]*\)`)
	admonitionTag = lazyre.New(`^\s*:::\s*[A-Za-z]*`)
	fenceLine     = lazyre.New("^\\s*(```|~~~)")
)

// matchWords is the normalised word sequence of one line of markdown (or
// of plain text): link targets, URLs, HTML/JSX tags, emphasis, heading
// markers and admonition markers dropped, entities resolved, lower-cased
// runs of letters and digits. Chunk text and page source go through it
// alike, so a chunker that stripped markdown and one that kept it match
// the same page. Code lines keep their words verbatim.
func matchWords(line string, code bool) []string {
	if !code {
		if strings.Contains(line, ":::") {
			line = admonitionTag.ReplaceAllString(line, "")
		}
		if strings.Contains(line, "](") {
			line = linkTarget.ReplaceAllString(line, "]")
		}
		if strings.Contains(line, "://") {
			line = bareURL.ReplaceAllString(line, " ")
		}
		if strings.ContainsAny(line, "<*_`[") {
			line = docusaurus.StripInlineMarkup(line)
		}
		if strings.Contains(line, "&") {
			line = html.UnescapeString(line)
		}
	}
	return strings.FieldsFunc(strings.ToLower(line), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// chunkWords is a chunk's normalised words; the leading heading line the
// chunker repeats in every chunk of a section is dropped (it names the
// section the chunker assigned, which is what is being checked), and so
// are code fence delimiter lines.
func chunkWords(text string) []string {
	text = strings.TrimLeft(text, " \t\r\n")
	if strings.HasPrefix(text, "#") {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		} else {
			text = ""
		}
	}
	var out []string
	inCode := false
	for _, l := range strings.Split(text, "\n") {
		if fenceLine.MatchString(l) {
			inCode = !inCode
			continue
		}
		out = append(out, matchWords(l, inCode)...)
	}
	return out
}

// wordHash is FNV-1a of a word.
func wordHash(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h ^= uint64(w[i])
		h *= 1099511628211
	}
	return h
}

// shingles returns the hash of every run of shingleSize words, in order,
// in out's storage; wh is scratch for the words' hashes. Both are
// returned for reuse.
func shingles(words []string, wh, out []uint64) ([]uint64, []uint64) {
	if len(words) < shingleSize {
		return wh, out[:0]
	}
	wh = slices.Grow(wh[:0], len(words))[:len(words)]
	for i, w := range words {
		wh[i] = wordHash(w)
	}
	n := len(words) - shingleSize + 1
	out = slices.Grow(out[:0], n)[:n]
	for i := range out {
		h := uint64(14695981039346656037)
		for _, x := range wh[i : i+shingleSize] {
			h = (h ^ x) * 1099511628211
			h ^= h >> 29
		}
		out[i] = h
	}
	return wh, out
}

// scope is the range of own-sections [lo, hi) of a page that a citation
// covers: the anchored heading's section with its subsections, or the
// whole page.
type scope struct {
	page   int32
	lo, hi int32
	ok     bool
}

// contentChecker checks chunks against a site's content; it is used from
// Audit's walk goroutine only.
type contentChecker struct {
	site   *Site
	ix     *contentIndex
	hosts  map[string]bool
	scopes map[string]scope
	pageIx map[*Page]int32
	rep    *ContentReport
	// counts (shingles found per own-section), wh and out are per-chunk
	// scratch; a chunk's text is in a handful of sections, so a slice
	// searched linearly beats a map.
	counts  []locCount
	wh, out []uint64
}

func newContentChecker(ctx context.Context, site *Site, policy ContentPolicy, hosts map[string]bool) (*contentChecker, error) {
	ix, err := site.contentOf(ctx)
	if err != nil {
		return nil, err
	}
	c := &contentChecker{site: site, ix: ix, hosts: hosts, scopes: map[string]scope{}, pageIx: map[*Page]int32{},
		rep: &ContentReport{Policy: policy, Findings: []ContentFinding{}}}
	for i, p := range ix.pages {
		c.pageIx[p] = int32(i)
	}
	return c, nil
}

// scopeOf resolves a citation URL to the part of a page it points at; ok
// is false for URLs that are not on the site, pages that do not exist and
// anchors that are missing or are not headings (those are the URL
// check's business).
func (c *contentChecker) scopeOf(rawURL string) scope {
	if sc, ok := c.scopes[rawURL]; ok {
		return sc
	}
	sc := scope{}
	defer func() { c.scopes[rawURL] = sc }()
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || rawURL == "" {
		return sc
	}
	if u.Host != "" && len(c.hosts) > 0 && !c.hosts[strings.ToLower(u.Host)] {
		return sc
	}
	p := c.site.PageByRoute(u.Path)
	pi, ok := c.pageIx[p]
	if p == nil || !ok {
		return sc
	}
	sc = scope{page: pi, lo: 0, hi: int32(len(p.Headings) + 1), ok: true}
	if u.Fragment == "" {
		return sc
	}
	hi, ok := p.anchors[u.Fragment]
	if !ok || hi < 0 {
		sc.ok = false
		return sc
	}
	sc.lo = int32(hi + 1)
	for j := hi + 1; j < len(p.Headings); j++ {
		if p.Headings[j].Level <= p.Headings[hi].Level {
			sc.hi = int32(j + 1)
			break
		}
	}
	return sc
}

// check judges one chunk cited with rawURL.
func (c *contentChecker) check(ref ChunkRef, text, rawURL string) {
	sc := c.scopeOf(rawURL)
	if !sc.ok {
		return
	}
	words := chunkWords(text)
	if len(words) < shingleSize {
		return
	}
	c.counts = c.counts[:0]
	total, found, inScope := 0, 0, 0
	firstInScope, first := false, true
	// A shingle repeated in the chunk counts each time: rare, and cheaper
	// than a set per chunk.
	c.wh, c.out = shingles(words, c.wh, c.out)
	for _, h := range c.out {
		total++
		in := false
		if !c.ix.at(h, func(l loc) {
			c.count(l)
			in = in || (l.page == sc.page && l.sec >= sc.lo && l.sec < sc.hi)
		}) {
			continue
		}
		found++
		if in {
			inScope++
		}
		if first {
			firstInScope, first = in, false
		}
	}
	c.rep.Checked++
	f := ContentFinding{ChunkRef: ref, URL: rawURL, FoundShare: float64(found) / float64(total)}
	if found > 0 {
		f.CitedShare = float64(inScope) / float64(found)
	}
	if u, err := url.Parse(rawURL); err == nil {
		f.Anchor = u.Fragment
	}
	switch {
	case found*2 < total:
		// Less than half of the chunk is on the site: not a wrong anchor
		// but a stale or foreign chunk.
		f.Verdict = VerdictTextNotFound
		c.rep.TextNotFound++
	case inScope*2 >= found || firstInScope:
		// The section holds most of the chunk, or the chunk starts there
		// (a chunk spanning two sections is cited at its start).
		c.rep.OK++
		return
	default:
		f.Verdict = VerdictWrongSection
		c.rep.WrongSection++
		best, n := c.best(sc.page)
		f.FoundIn = float64(n) / float64(found)
		p := c.ix.pages[best.page]
		anchor, heading := anchorOf(p, int(best.sec))
		f.FoundAnchor, f.FoundHeading, f.FoundSource, f.FoundURL = anchor, heading, p.Source, c.site.URL(p, anchor)
	}
	c.rep.Findings = append(c.rep.Findings, f)
}

// best is the own-section holding most of the last checked chunk's
// shingles: on the cited page first when tied, then the earliest.
func (c *contentChecker) best(citedPage int32) (loc, int) {
	var best loc
	n := -1
	for _, lc := range c.counts {
		if lc.n > n || (lc.n == n && before(lc.loc, best, citedPage)) {
			best, n = lc.loc, lc.n
		}
	}
	return best, n
}

// locCount is a number of shingles found in one own-section.
type locCount struct {
	loc
	n int
}

// count adds one shingle found at l.
func (c *contentChecker) count(l loc) {
	for i := range c.counts {
		if c.counts[i].loc == l {
			c.counts[i].n++
			return
		}
	}
	c.counts = append(c.counts, locCount{l, 1})
}

// before orders tied sections: the cited page first, then page order,
// then section order.
func before(a, b loc, citedPage int32) bool {
	if (a.page == citedPage) != (b.page == citedPage) {
		return a.page == citedPage
	}
	if a.page != b.page {
		return a.page < b.page
	}
	return a.sec < b.sec
}

// anchorOf is the anchor a reader should be sent to for own-section sec of
// p: the heading's id, or for a heading no URL reaches (an H1 or an HTML
// heading, which the built page gives no id; a heading whose id an earlier
// element of the page has too, as a partial's heading can, since a browser
// goes to the first) the closest enclosing heading one reaches, or "" (the
// page's top).
func anchorOf(p *Page, sec int) (anchor, heading string) {
	if sec == 0 {
		return "", ""
	}
	reachable := func(j int) bool {
		h := p.Headings[j]
		return !h.NoAnchor && p.anchors[h.ID] == j
	}
	h := p.Headings[sec-1]
	if reachable(sec - 1) {
		return h.ID, h.Text
	}
	level := h.Level
	for j := sec - 2; j >= 0; j-- {
		if p.Headings[j].Level < level {
			if reachable(j) {
				return p.Headings[j].ID, p.Headings[j].Text
			}
			level = p.Headings[j].Level
		}
	}
	return "", h.Text
}

// siteContent is the lazily built shingle index a Site carries.
type siteContent struct {
	contentMu sync.Mutex
	content   *contentIndex
}
