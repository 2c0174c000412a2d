// Package chunkaudit reports how a collection was cut into chunks: the
// size distribution in tokens and characters (overall and per module), the
// chunks longer than the embedding model reads and the share of the text it
// never saw, tiny, empty and duplicate chunks, per-page counts and, given
// the site, the pages and headings no chunk covers.
//
// An Auditor takes chunks one at a time and keeps only numbers, hashes and
// references, never texts, so a collection of any size is read in bounded
// memory (a few hundred bytes per chunk).
package chunkaudit

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"ragscope/retrieval"
)

// Schema names the version of the JSON report.
const Schema = "ragscope.chunks/v1"

// DefaultTinyTokens is the size under which a chunk is reported as tiny.
const DefaultTinyTokens = 16

// DefaultNearThreshold is the default near-duplicate similarity: below the
// pipeline's dedup threshold (retrieval.DedupJaccard), so that the pairs it
// drops are found despite the estimate's error (±0.03), and the pairs just
// under it, which both take a slot of the top-k, are found too.
const DefaultNearThreshold = 0.9

// Options configure an Auditor.
type Options struct {
	// Limit is the embedding model's input limit.
	Limit Limit
	// TinyTokens: chunks under this many tokens are tiny (default
	// DefaultTinyTokens; negative turns the size rule off, heading-only
	// chunks are still tiny).
	TinyTokens int
	// NearThreshold is the estimated Jaccard similarity of word tokens at
	// or above which two different texts are near-duplicates (default
	// DefaultNearThreshold).
	NearThreshold float64
	// Site, when set, is the docs the chunks came from: pages and headings
	// no chunk covers are reported.
	Site *Site
	// OwnChunker says ragscope's chunker cut the chunks (a local index or
	// the demo): the report then names it as the maker of the chunker's
	// classes of tiny chunks.
	OwnChunker bool
}

// Site is the docs side of the coverage check.
type Site struct {
	// Pages of the site, in order.
	Pages []SitePage
	// Locate returns the page route and heading anchor a chunk cites
	// ("" when it points at no page of the site).
	Locate func(c *retrieval.Chunk) (route, anchor string)
}

// SitePage is one page of the docs.
type SitePage struct {
	Route    string
	Source   string
	Title    string
	Headings []SiteHeading
}

// SiteHeading is one heading of a page.
type SiteHeading struct {
	ID    string
	Text  string
	Level int
	// Citable is false for headings no chunk is expected to cite (the page
	// title, headings without an anchor or without text of their own).
	Citable bool
}

// ChunkRef names a chunk in the report.
type ChunkRef struct {
	ID      string `json:"id"`
	Page    string `json:"page"`
	Section string `json:"section,omitempty"`
	Index   *int   `json:"chunk_index,omitempty"`
}

// Dist summarises a distribution of sizes.
type Dist struct {
	Min  int     `json:"min"`
	P50  int     `json:"p50"`
	P90  int     `json:"p90"`
	P99  int     `json:"p99"`
	Max  int     `json:"max"`
	Mean float64 `json:"mean"`
}

// Bucket is one bar of the token histogram: chunks with From <= tokens < To
// (To 0: no upper bound).
type Bucket struct {
	From   int `json:"from"`
	To     int `json:"to,omitempty"`
	Chunks int `json:"chunks"`
}

// ModuleSizes is the size distribution of one module's chunks.
type ModuleSizes struct {
	Module    string `json:"module"`
	Chunks    int    `json:"chunks"`
	Tokens    Dist   `json:"tokens"`
	OverLimit int    `json:"over_limit"`
}

// OverChunk is a chunk longer than the model's input.
type OverChunk struct {
	ChunkRef
	Tokens int `json:"tokens"`
	// Unseen is the tokens past the limit, the part the model never read.
	Unseen int `json:"unseen_tokens"`
	// UnseenPercent is Unseen as a share of the chunk's tokens.
	UnseenPercent float64 `json:"unseen_percent"`
}

// OverLimit is the over-limit finding.
type OverLimit struct {
	Chunks int `json:"chunks"`
	// Percent of all chunks.
	Percent float64 `json:"percent"`
	// UnseenTokens is the sum of the chunks' tokens past the limit, and
	// UnseenPercent its share of all tokens: the text no query can find.
	UnseenTokens  int64       `json:"unseen_tokens"`
	UnseenPercent float64     `json:"unseen_percent"`
	List          []OverChunk `json:"list"`
}

// Tiny is a chunk too small to stand on its own.
type Tiny struct {
	ChunkRef
	Tokens int `json:"tokens"`
	// Reason is "heading only" or "under N tokens".
	Reason string `json:"reason"`
	// Class says what made it: ClassHeadingOnly, ClassSeparator,
	// ClassCodeRemnant (the chunker's doing), ClassShortSection or
	// ClassBoilerplate (the book's).
	Class string `json:"class"`
	// ByChunker is true for the chunker's classes.
	ByChunker bool `json:"by_chunker"`
	// Start is the chunk's first 80 characters (white space collapsed).
	Start string `json:"start"`
}

// Pair is two chunks with the same or nearly the same text.
type Pair struct {
	// First is the chunk read first; Second duplicates it.
	First  ChunkRef `json:"first"`
	Second ChunkRef `json:"second"`
	// Similarity is 1 for identical text (or content hash), else the
	// estimated Jaccard similarity of their word tokens.
	Similarity float64 `json:"similarity"`
	// SamePage is true when both come from one page.
	SamePage bool `json:"same_page"`
	// Class is ClassBoilerplate for a short text repeated (under
	// boilerplateTokens), else the tiny class of the text or "" for a
	// repeated passage.
	Class string `json:"class,omitempty"`
	// Start is the second chunk's first 80 characters.
	Start string `json:"start"`
}

// boilerplateTokens: a repeated text shorter than this is boilerplate
// (a note, a time estimate), not a copied passage.
const boilerplateTokens = 64

// PageStat counts one page's chunks.
type PageStat struct {
	Page      string `json:"page"`
	Title     string `json:"title,omitempty"`
	Chunks    int    `json:"chunks"`
	Tokens    int64  `json:"tokens"`
	MaxTokens int    `json:"max_tokens"`
	OverLimit int    `json:"over_limit"`
	Tiny      int    `json:"tiny"`
	Empty     int    `json:"empty"`
}

// PageRef names a page of the site.
type PageRef struct {
	Route  string `json:"route"`
	Source string `json:"source,omitempty"`
	Title  string `json:"title,omitempty"`
}

// HeadingRef names a heading of a page.
type HeadingRef struct {
	PageRef
	Anchor  string `json:"anchor"`
	Heading string `json:"heading"`
	Level   int    `json:"level"`
}

// Coverage compares the chunks with the site's pages.
type Coverage struct {
	Pages                 int          `json:"pages"`
	PagesWithoutChunks    []PageRef    `json:"pages_without_chunks"`
	HeadingsWithoutChunks []HeadingRef `json:"headings_without_chunks"`
}

// Report is the whole audit.
type Report struct {
	Schema string `json:"schema"`
	Chunks int    `json:"chunks"`
	Limit  Limit  `json:"limit"`
	// Tokenizer says how tokens were counted.
	Tokenizer     string        `json:"tokenizer"`
	TinyTokens    int           `json:"tiny_tokens"`
	NearThreshold float64       `json:"near_threshold"`
	Tokens        Dist          `json:"tokens"`
	Chars         Dist          `json:"chars"`
	Histogram     []Bucket      `json:"histogram"`
	Modules       []ModuleSizes `json:"modules"`
	OverLimit     OverLimit     `json:"over_limit"`
	Tiny          []Tiny        `json:"tiny"`
	// TinyByChunker counts the tiny chunks of the chunker's classes
	// (heading only, separator, code remnant); the rest are the book's.
	TinyByChunker int `json:"tiny_by_chunker"`
	// Chunker names who cut the chunks when known: "ragscope" for a
	// local index (Options.OwnChunker), else "".
	Chunker        string     `json:"chunker,omitempty"`
	Empty          []ChunkRef `json:"empty"`
	Duplicates     []Pair     `json:"duplicates"`
	NearDuplicates []Pair     `json:"near_duplicates"`
	Pages          []PageStat `json:"pages"`
	Coverage       *Coverage  `json:"coverage,omitempty"`
	// Summary is the findings in sentences, the over-limit one first.
	Summary []string `json:"summary"`
}

// Auditor accumulates the audit of a stream of chunks. It is not safe for
// concurrent use.
type Auditor struct {
	opts    Options
	n       int
	tokens  []int32
	chars   []int32
	modules map[string][]int32
	modOver map[string]int
	total   int64
	rep     Report
	pages   map[string]*PageStat
	intern  map[string]string

	refs      []ChunkRef
	sigs      []signature
	byHash    map[uint64]int32
	byContent map[string]int32
	byBand    map[uint64]int32

	routes  map[string]bool
	anchors map[string]bool
}

// New returns an Auditor.
func New(opts Options) *Auditor {
	if opts.TinyTokens == 0 {
		opts.TinyTokens = DefaultTinyTokens
	}
	if opts.NearThreshold <= 0 {
		opts.NearThreshold = DefaultNearThreshold
	}
	return &Auditor{
		opts: opts, modules: map[string][]int32{}, modOver: map[string]int{},
		pages: map[string]*PageStat{}, intern: map[string]string{},
		byHash: map[uint64]int32{}, byContent: map[string]int32{}, byBand: map[uint64]int32{},
		routes: map[string]bool{}, anchors: map[string]bool{},
		rep: Report{Tiny: []Tiny{}, Empty: []ChunkRef{}, Duplicates: []Pair{}, NearDuplicates: []Pair{}, OverLimit: OverLimit{List: []OverChunk{}}},
	}
}

func (a *Auditor) str(s string) string {
	if v, ok := a.intern[s]; ok {
		return v
	}
	a.intern[s] = s
	return s
}

// PageKey is the page a chunk is counted under: its doc path, else its
// URL without the anchor, else its title.
func PageKey(c *retrieval.Chunk) string {
	switch {
	case c.DocPath != "":
		return c.DocPath
	case c.URL != "":
		if u, err := url.Parse(c.URL); err == nil {
			u.Fragment = ""
			return u.String()
		}
		return c.URL
	case c.Title != "":
		return c.Title
	}
	return "(no page)"
}

// Add audits one chunk.
func (a *Auditor) Add(c *retrieval.Chunk) {
	idx := int32(a.n)
	a.n++
	page := a.str(PageKey(c))
	ref := ChunkRef{ID: c.ID, Page: page, Section: a.str(c.Section)}
	if c.ChunkIndex != nil {
		ref.Index = retrieval.IntPtr(*c.ChunkIndex)
	}
	a.refs = append(a.refs, ref)
	ps := a.pages[page]
	if ps == nil {
		ps = &PageStat{Page: page, Title: a.str(c.Title)}
		a.pages[page] = ps
	}
	ps.Chunks++

	if a.opts.Site != nil && a.opts.Site.Locate != nil {
		if route, anchor := a.opts.Site.Locate(c); route != "" {
			a.routes[route] = true
			if anchor != "" {
				a.anchors[route+"#"+anchor] = true
			}
		}
	}

	text := c.Text
	tok := Tokens(text)
	a.tokens = append(a.tokens, int32(tok))
	a.chars = append(a.chars, int32(utf8.RuneCountInString(text)))
	a.modules[a.str(c.Module)] = append(a.modules[a.str(c.Module)], int32(tok))
	a.total += int64(tok)
	ps.Tokens += int64(tok)
	ps.MaxTokens = max(ps.MaxTokens, tok)
	a.sigs = append(a.sigs, signature{})

	if strings.TrimSpace(text) == "" {
		a.rep.Empty = append(a.rep.Empty, ref)
		ps.Empty++
		return
	}
	if l := a.opts.Limit; l.Tokens > 0 && tok > l.Tokens {
		unseen := tok - l.Tokens
		a.rep.OverLimit.List = append(a.rep.OverLimit.List, OverChunk{ChunkRef: ref, Tokens: tok, Unseen: unseen, UnseenPercent: pct(int64(unseen), int64(tok))})
		a.rep.OverLimit.UnseenTokens += int64(unseen)
		a.modOver[c.Module]++
		ps.OverLimit++
	}
	if headingOnly(c) {
		a.rep.Tiny = append(a.rep.Tiny, Tiny{ChunkRef: ref, Tokens: tok, Reason: "heading only", Class: ClassHeadingOnly, ByChunker: true, Start: start(text)})
		ps.Tiny++
	} else if tok < a.opts.TinyTokens {
		class := classify(text)
		a.rep.Tiny = append(a.rep.Tiny, Tiny{ChunkRef: ref, Tokens: tok, Reason: fmt.Sprintf("under %d tokens", a.opts.TinyTokens), Class: class, ByChunker: ByChunker(class), Start: start(text)})
		ps.Tiny++
	}
	a.duplicates(idx, c, tok)
}

// duplicates checks chunk idx against the chunks before it: the same
// content hash or text (the pipeline dedup's exact rule), else an estimated
// token Jaccard at or above the threshold.
func (a *Auditor) duplicates(idx int32, c *retrieval.Chunk, tok int) {
	h := fnv.New64a()
	h.Write([]byte(c.Text))
	th := h.Sum64()
	first, dup := a.byHash[th]
	if !dup && c.ContentHash != "" {
		first, dup = a.byContent[c.ContentHash]
	}
	if dup {
		p := a.pair(first, idx, 1)
		p.Start = start(c.Text)
		switch {
		case headingOnly(c):
			p.Class = ClassHeadingOnly
		case tok < boilerplateTokens:
			p.Class = classify(c.Text)
			if p.Class == ClassShortSection {
				p.Class = ClassBoilerplate
			}
		}
		a.rep.Duplicates = append(a.rep.Duplicates, p)
		return
	}
	a.byHash[th] = idx
	if c.ContentHash != "" {
		a.byContent[c.ContentHash] = idx
	}
	sig, ok := newSignature(c.Text)
	if !ok {
		return
	}
	a.sigs[idx] = sig
	keys := sig.bandKeys()
	best, bestSim := int32(-1), 0.0
	for _, k := range keys {
		if j, ok := a.byBand[k]; ok {
			if s := sig.similarity(&a.sigs[j]); s > bestSim || (s == bestSim && j < best) {
				best, bestSim = j, s
			}
		}
	}
	if best >= 0 && bestSim >= a.opts.NearThreshold {
		p := a.pair(best, idx, bestSim)
		p.Start = start(c.Text)
		if tok < boilerplateTokens {
			p.Class = ClassBoilerplate
		}
		a.rep.NearDuplicates = append(a.rep.NearDuplicates, p)
	}
	for _, k := range keys {
		if _, ok := a.byBand[k]; !ok {
			a.byBand[k] = idx
		}
	}
}

func (a *Auditor) pair(first, second int32, sim float64) Pair {
	f, s := a.refs[first], a.refs[second]
	return Pair{First: f, Second: s, Similarity: sim, SamePage: f.Page == s.Page}
}

// headingOnly reports whether a chunk's text is nothing but headings (or
// its own section or page title).
func headingOnly(c *retrieval.Chunk) bool {
	t := strings.TrimSpace(c.Text)
	if t == c.Section || t == c.Title {
		return true
	}
	for line := range strings.Lines(t) {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}

// Chunks returns the number of chunks added so far.
func (a *Auditor) Chunks() int { return a.n }

// Report finishes the audit.
func (a *Auditor) Report() *Report {
	r := a.rep
	r.Schema = Schema
	r.Chunks = a.n
	r.Limit = a.opts.Limit
	r.Tokenizer = TokenEstimate
	r.TinyTokens = a.opts.TinyTokens
	r.NearThreshold = a.opts.NearThreshold
	if a.opts.OwnChunker {
		r.Chunker = "ragscope"
	}
	// A short section the book repeats on another page is boilerplate.
	repeated := map[string]bool{}
	for _, p := range r.Duplicates {
		repeated[p.First.ID], repeated[p.Second.ID] = true, true
	}
	r.TinyByChunker = 0
	for i := range r.Tiny {
		t := &r.Tiny[i]
		if t.Class == ClassShortSection && repeated[t.ID] {
			t.Class = ClassBoilerplate
		}
		if t.ByChunker {
			r.TinyByChunker++
		}
	}
	r.Tokens = dist(a.tokens)
	r.Chars = dist(a.chars)
	r.Histogram = histogram(a.tokens)
	for _, m := range slices.Sorted(maps.Keys(a.modules)) {
		r.Modules = append(r.Modules, ModuleSizes{Module: m, Chunks: len(a.modules[m]), Tokens: dist(a.modules[m]), OverLimit: a.modOver[m]})
	}
	if r.Modules == nil {
		r.Modules = []ModuleSizes{}
	}
	o := &r.OverLimit
	o.Chunks = len(o.List)
	o.Percent = pct(int64(o.Chunks), int64(a.n))
	o.UnseenPercent = pct(o.UnseenTokens, a.total)
	slices.SortStableFunc(o.List, func(x, y OverChunk) int { return cmp.Compare(y.Unseen, x.Unseen) })
	r.Pages = make([]PageStat, 0, len(a.pages))
	for _, k := range slices.Sorted(maps.Keys(a.pages)) {
		r.Pages = append(r.Pages, *a.pages[k])
	}
	if a.opts.Site != nil {
		r.Coverage = a.coverage()
	}
	r.Summary = summary(&r)
	return &r
}

// coverage lists the site's pages no chunk cites and, on pages that have
// chunks, the citable headings no chunk cites, directly or through a cited
// parent heading (whose chunk holds its subsections).
func (a *Auditor) coverage() *Coverage {
	cov := &Coverage{PagesWithoutChunks: []PageRef{}, HeadingsWithoutChunks: []HeadingRef{}}
	for _, p := range a.opts.Site.Pages {
		cov.Pages++
		ref := PageRef{Route: p.Route, Source: p.Source, Title: p.Title}
		if !a.routes[p.Route] {
			cov.PagesWithoutChunks = append(cov.PagesWithoutChunks, ref)
			continue
		}
		var parents [7]bool
		for _, h := range p.Headings {
			lvl := min(max(h.Level, 1), 6)
			cited := a.anchors[p.Route+"#"+h.ID]
			under := false
			for l := 1; l < lvl; l++ {
				under = under || parents[l]
			}
			for l := lvl; l < len(parents); l++ {
				parents[l] = false
			}
			parents[lvl] = cited || under
			if h.Citable && !cited && !under {
				cov.HeadingsWithoutChunks = append(cov.HeadingsWithoutChunks, HeadingRef{PageRef: ref, Anchor: h.ID, Heading: h.Text, Level: h.Level})
			}
		}
	}
	return cov
}

// OverLimitSentence says how many chunks exceed the limit: "212 chunks
// (9%) exceed embed-english-v3.0's 512 tokens", "1 chunk (20%) exceeds …".
func (r *Report) OverLimitSentence() string {
	o := r.OverLimit
	verb, noun := "exceed", "chunks"
	if o.Chunks == 1 {
		verb, noun = "exceeds", "chunk"
	}
	return fmt.Sprintf("%d %s (%s) %s %s's %d tokens", o.Chunks, noun, Percent(o.Percent), verb, r.Limit.Model, r.Limit.Tokens)
}

func summary(r *Report) []string {
	var out []string
	switch l := r.Limit; {
	case !l.Known:
		out = append(out, fmt.Sprintf("the input limit of %s is not known: pass --limit TOKENS to check for chunks it would cut", modelOr(l.Model)))
	case l.Tokens == 0:
		out = append(out, fmt.Sprintf("%s reads every token of a chunk: none is cut", modelOr(l.Model)))
	default:
		s := r.OverLimitSentence()
		if r.OverLimit.Chunks > 0 {
			s += fmt.Sprintf("; %s of the text is not searchable", Percent(r.OverLimit.UnseenPercent))
		}
		out = append(out, s)
	}
	count := func(n int, one, many, what string) {
		if n > 0 {
			noun := many
			if n == 1 {
				noun = one
			}
			out = append(out, fmt.Sprintf("%d %s %s", n, noun, what))
		}
	}
	if n := len(r.Tiny); n > 0 {
		maker := "the chunker"
		if r.Chunker != "" {
			maker = r.Chunker + "'s chunker"
		}
		s := fmt.Sprintf("%d %s tiny (heading only or under %d tokens): %d made by %s (heading only, separator, code remnant), %d by the book (short sections, repeated boilerplate)",
			n, map[bool]string{true: "chunk is", false: "chunks are"}[n == 1], r.TinyTokens, r.TinyByChunker, maker, n-r.TinyByChunker)
		out = append(out, s)
	}
	count(len(r.Empty), "chunk has", "chunks have", "no text")
	count(len(r.Duplicates), "chunk repeats", "chunks repeat", "another's text exactly")
	count(len(r.NearDuplicates), "chunk nearly repeats", "chunks nearly repeat", "another's text")
	if c := r.Coverage; c != nil {
		count(len(c.PagesWithoutChunks), "page has", "pages have", "no chunk")
		count(len(c.HeadingsWithoutChunks), "heading has", "headings have", "no chunk on a page that has chunks")
	}
	return out
}

func modelOr(m string) string {
	if m == "" {
		return "the embedding model"
	}
	return m
}

// Percent renders a share for people: "9%", "<1%" for a share above 0
// that rounds to 0, "0%".
func Percent(p float64) string {
	if p > 0 && p < 0.5 {
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

func pct(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return math.Round(float64(n)*10000/float64(of)) / 100
}

func dist(v []int32) Dist {
	if len(v) == 0 {
		return Dist{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	var sum int64
	for _, x := range s {
		sum += int64(x)
	}
	rank := func(p float64) int {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return int(s[min(max(i, 0), len(s)-1)])
	}
	return Dist{Min: int(s[0]), P50: rank(0.5), P90: rank(0.9), P99: rank(0.99), Max: int(s[len(s)-1]), Mean: math.Round(float64(sum)*10/float64(len(s))) / 10}
}

// histogramEdges are the bucket bounds in tokens.
var histogramEdges = []int{0, 1, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}

func histogram(tokens []int32) []Bucket {
	counts := make([]int, len(histogramEdges))
	for _, t := range tokens {
		i, _ := slices.BinarySearch(histogramEdges, int(t)+1)
		counts[i-1]++
	}
	lo, hi := -1, -1
	for i, c := range counts {
		if c > 0 {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	out := []Bucket{}
	for i := lo; i >= 0 && i <= hi; i++ {
		b := Bucket{From: histogramEdges[i], Chunks: counts[i]}
		if i+1 < len(histogramEdges) {
			b.To = histogramEdges[i+1]
		}
		out = append(out, b)
	}
	return out
}
