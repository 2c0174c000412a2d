package golden

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chatcache"
)

// MinWords is the fewest words a section needs to be sampled: shorter
// ones are stubs (a heading and a line) that answer nothing worth asking.
const MinWords = 20

// MaxSectionChars bounds the text of a section sent to the model, in
// bytes: a longer section is cut at a word boundary.
const MaxSectionChars = 8000

// Section is the text of a page under one heading: the chunks that share
// a doc path and a heading, in reading order.
type Section struct {
	// DocPath is the page's source file ("docs/module-1/intro.md"); URL
	// is the citation URL of the section ("…/docs/module-1/intro#setup").
	DocPath, URL string
	// Module is the page's module, when known.
	Module string
	// Title is the page's title and Heading the section's heading ("" for
	// the text before the first heading).
	Title, Heading string
	// Text is the section's text, at most MaxSectionChars.
	Text string
	// Words is the number of words of Text.
	Words int
}

// Hash is the hash of what the model is shown of s: the cache keys hold
// it, so an edited section is asked again.
func (s Section) Hash() string {
	return chatcache.Hash(s.Title + "\x00" + s.Heading + "\x00" + s.Text)
}

// page is s's page: its doc path, else its URL without the anchor.
func (s Section) page() string {
	if s.DocPath != "" {
		return s.DocPath
	}
	u, _, _ := strings.Cut(s.URL, "#")
	return u
}

// Sections groups chunks into sections: the chunks of one page (doc path,
// else citation URL) under one heading, joined in reading order. The
// sections come in page order, then reading order, whatever order the
// chunks were listed in. A chunk that names no page is left out (no case
// could expect it); urls builds each section's citation URL.
func Sections(chunks []retrieval.Chunk, urls retrieval.URLBuilder) []Section {
	type group struct {
		sec   Section
		first int
		parts []retrieval.Chunk
	}
	cs := slices.Clone(chunks)
	retrieval.SortReadingOrder(cs)
	slices.SortStableFunc(cs, func(a, b retrieval.Chunk) int { return cmp.Compare(a.DocPath, b.DocPath) })
	var groups []*group
	byKey := map[[2]string]*group{}
	for i := range cs {
		c := &cs[i]
		cit := urls.Cite(c)
		page := c.DocPath
		if page == "" {
			page, _, _ = strings.Cut(cit.URL, "#")
		}
		if page == "" || strings.TrimSpace(c.Text) == "" {
			continue
		}
		heading := c.HeadingID
		if heading == "" {
			heading = c.Section
		}
		k := [2]string{page, heading}
		g := byKey[k]
		if g == nil {
			g = &group{sec: Section{DocPath: c.DocPath, URL: cit.URL, Module: c.Module, Title: c.Title, Heading: c.Section}, first: len(groups)}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.parts = append(g.parts, *c)
	}
	out := make([]Section, 0, len(groups))
	for _, g := range groups {
		texts := make([]string, len(g.parts))
		for i, c := range g.parts {
			texts[i] = strings.TrimSpace(c.Text)
		}
		s := g.sec
		s.Text = clipWords(strings.Join(texts, "\n\n"), MaxSectionChars)
		s.Words = len(strings.Fields(s.Text))
		out = append(out, s)
	}
	return out
}

// clipWords is text cut to at most n bytes, at a space when there is one.
func clipWords(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := text[:n]
	if i := strings.LastIndexAny(cut, " \n\t"); i > n/2 {
		cut = cut[:i]
	}
	return strings.ToValidUTF8(cut, "")
}

// Sample picks n sections of secs for questions: stubs (under MinWords
// words) are skipped; the rest are drawn weighted by their words
// (weighted sampling without replacement, from a generator seeded with
// seed), spread across pages: no page gets a second section before every
// drawn page has one, and so on. The same sections, n and seed give the
// same sample, returned in secs' order.
func Sample(secs []Section, n int, seed uint64) []Section {
	type drawn struct {
		i   int
		key float64
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var ds []drawn
	for i, s := range secs {
		u := rng.Float64()
		if s.Words < MinWords {
			continue
		}
		// Efraimidis–Spirakis: the n largest u^(1/w) are a weighted sample.
		ds = append(ds, drawn{i, math.Log(max(u, math.SmallestNonzeroFloat64)) / float64(s.Words)})
	}
	slices.SortStableFunc(ds, func(a, b drawn) int { return cmp.Compare(b.key, a.key) })
	picked := make([]bool, len(secs))
	perPage := map[string]int{}
	taken := 0
	for round := 1; taken < min(n, len(ds)); round++ {
		for _, d := range ds {
			if taken == n {
				break
			}
			p := secs[d.i].page()
			if picked[d.i] || perPage[p] >= round {
				continue
			}
			picked[d.i] = true
			perPage[p]++
			taken++
		}
	}
	out := make([]Section, 0, taken)
	for i, s := range secs {
		if picked[i] {
			out = append(out, s)
		}
	}
	return out
}
