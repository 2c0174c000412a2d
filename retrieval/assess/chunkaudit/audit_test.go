package chunkaudit

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"ragscope/retrieval"
)

// words returns n distinct words starting at from ("w12 w13 …").
func words(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "w%d", from+i)
	}
	return b.String()
}

func chunk(id, page, section, text string) retrieval.Chunk {
	return retrieval.Chunk{ID: id, DocPath: page, Section: section, Text: text, Module: strings.Split(page, "/")[0]}
}

func audit(opts Options, chunks ...retrieval.Chunk) *Report {
	a := New(opts)
	for i := range chunks {
		a.Add(&chunks[i])
	}
	return a.Report()
}

func TestTokensEstimate(t *testing.T) {
	for text, want := range map[string]int{
		"":                        0,
		"the cat sat":             3,
		"Hello, world!":           4,
		"internationalization":    4, // 20 letters: 1 + 19/6
		"ros2 run demo_nodes":     5, // ros2, run, demo, _, nodes
		"机器人":                     3,
		"  spaced\n\nout\ttext  ": 3,
	} {
		if got := Tokens(text); got != want {
			t.Errorf("Tokens(%q) = %d, want %d", text, got, want)
		}
	}
}

// TestLimitsFor: a model is matched by its name or a prefix row, in any
// case and without a "models/" prefix; the first matching row wins, and
// an unknown model has no limit.
func TestLimitsFor(t *testing.T) {
	l := Limits{{Model: "fake-embed-1", Tokens: 300}, {Model: "fake-*", Tokens: 900}, {Model: "whole-*", Tokens: 0}}
	for model, want := range map[string]int{"fake-embed-1": 300, "Fake-Embed-1": 300, "models/fake-embed-1": 300, "fake-embed-2": 900, "whole-text": 0} {
		if got := l.For(model); !got.Known || got.Tokens != want || got.Model != model {
			t.Errorf("For(%q) = %+v, want %d", model, got, want)
		}
	}
	if got := l.For("other"); got.Known {
		t.Errorf("an unknown model has a limit: %+v", got)
	}
	if got := Limits(nil).For("fake-embed-1"); got.Known {
		t.Errorf("no table, yet a limit: %+v", got)
	}
}

// cohereLimit is embed-english-v3.0's input limit.
var cohereLimit = Limit{Model: "embed-english-v3.0", Tokens: 512, Known: true}

func TestOverLimitShareAndSentence(t *testing.T) {
	r := audit(Options{Limit: Limit{Model: "embed-english-v3.0", Tokens: 100, Known: true}},
		chunk("1", "m1/a.md", "Long", words(0, 300)),
		chunk("2", "m1/a.md", "Short", words(1000, 50)),
		chunk("3", "m1/b.md", "Mid", words(2000, 50)),
		chunk("4", "m2/c.md", "Mid", words(3000, 50)),
		chunk("5", "m2/c.md", "End", words(4000, 50)),
	)
	o := r.OverLimit
	if o.Chunks != 1 || o.Percent != 20 || o.List[0].ID != "1" || o.List[0].Unseen != 200 {
		t.Fatalf("over limit: %+v", o)
	}
	// 200 of 500 tokens were never read.
	if o.UnseenTokens != 200 || o.UnseenPercent != 40 {
		t.Fatalf("unseen: %+v", o)
	}
	if got, want := r.OverLimitSentence(), "1 chunk (20%) exceeds embed-english-v3.0's 100 tokens"; got != want {
		t.Fatalf("sentence %q, want %q", got, want)
	}
	if got := r.Summary[0]; got != "1 chunk (20%) exceeds embed-english-v3.0's 100 tokens; 40% of the text is not searchable" {
		t.Fatalf("summary %q", got)
	}
	if r.Modules[0].Module != "m1" || r.Modules[0].OverLimit != 1 || r.Modules[1].Chunks != 2 {
		t.Fatalf("modules: %+v", r.Modules)
	}
	if p := r.Pages[0]; p.Page != "m1/a.md" || p.Chunks != 2 || p.MaxTokens != 300 || p.OverLimit != 1 {
		t.Fatalf("pages: %+v", r.Pages)
	}
	if r.Tokens.Max != 300 || r.Tokens.P50 != 50 || r.Tokens.Min != 50 {
		t.Fatalf("tokens: %+v", r.Tokens)
	}

	two := audit(Options{Limit: Limit{Model: "m", Tokens: 10, Known: true}}, chunk("1", "a", "", words(0, 20)), chunk("2", "a", "", words(50, 20)), chunk("3", "a", "", words(90, 5)))
	if got := two.OverLimitSentence(); got != "2 chunks (67%) exceed m's 10 tokens" {
		t.Fatalf("plural sentence %q", got)
	}
}

func TestTinyAndEmpty(t *testing.T) {
	r := audit(Options{Limit: cohereLimit},
		chunk("h", "a.md", "Setup", "## Setup"),
		chunk("t", "a.md", "Note", "Short note here."),
		chunk("e", "a.md", "Blank", "   \n"),
		chunk("ok", "a.md", "Body", words(0, 40)),
	)
	if len(r.Tiny) != 2 || r.Tiny[0].ID != "h" || r.Tiny[0].Reason != "heading only" || r.Tiny[1].ID != "t" || r.Tiny[1].Reason != "under 16 tokens" {
		t.Fatalf("tiny: %+v", r.Tiny)
	}
	if len(r.Empty) != 1 || r.Empty[0].ID != "e" {
		t.Fatalf("empty: %+v", r.Empty)
	}
	if r.Pages[0].Tiny != 2 || r.Pages[0].Empty != 1 {
		t.Fatalf("page: %+v", r.Pages[0])
	}
}

func TestDuplicatesExactAndNear(t *testing.T) {
	base := words(0, 60)
	near := strings.Replace(base, "w7 ", "changed ", 1) // Jaccard 59/61
	other := words(500, 60)
	r := audit(Options{Limit: cohereLimit},
		chunk("1", "a.md", "S", base),
		chunk("2", "b.md", "S", base),
		chunk("3", "c.md", "S", near),
		chunk("4", "d.md", "S", other),
		retrieval.Chunk{ID: "5", DocPath: "e.md", Text: words(900, 30), ContentHash: "h1"},
		retrieval.Chunk{ID: "6", DocPath: "e.md", Text: words(950, 30), ContentHash: "h1"},
	)
	if len(r.Duplicates) != 2 || r.Duplicates[0].First.ID != "1" || r.Duplicates[0].Second.ID != "2" || r.Duplicates[0].SamePage {
		t.Fatalf("duplicates: %+v", r.Duplicates)
	}
	if d := r.Duplicates[1]; d.First.ID != "5" || d.Second.ID != "6" || !d.SamePage {
		t.Fatalf("content-hash duplicate: %+v", d)
	}
	if len(r.NearDuplicates) != 1 || r.NearDuplicates[0].First.ID != "1" || r.NearDuplicates[0].Second.ID != "3" || r.NearDuplicates[0].Similarity < 0.9 {
		t.Fatalf("near duplicates: %+v", r.NearDuplicates)
	}
}

func TestCoverage(t *testing.T) {
	site := &Site{
		Pages: []SitePage{
			{Route: "/docs/a", Headings: []SiteHeading{{ID: "a", Text: "A", Level: 1}, {ID: "one", Text: "One", Level: 2, Citable: true}, {ID: "sub", Text: "Sub", Level: 3, Citable: true}, {ID: "two", Text: "Two", Level: 2, Citable: true}}},
			{Route: "/docs/b", Title: "B"},
		},
		Locate: func(c *retrieval.Chunk) (string, string) { return "/docs/" + c.DocPath, c.HeadingID },
	}
	c := chunk("1", "a", "One", words(0, 30))
	c.HeadingID = "one"
	r := audit(Options{Site: site}, c)
	cov := r.Coverage
	if len(cov.PagesWithoutChunks) != 1 || cov.PagesWithoutChunks[0].Route != "/docs/b" {
		t.Fatalf("pages without chunks: %+v", cov.PagesWithoutChunks)
	}
	// "sub" is inside the cited "one"; "two" has no chunk.
	if len(cov.HeadingsWithoutChunks) != 1 || cov.HeadingsWithoutChunks[0].Anchor != "two" {
		t.Fatalf("headings without chunks: %+v", cov.HeadingsWithoutChunks)
	}
}

func TestRules(t *testing.T) {
	rules, err := ParseRules("over-limit>0, duplicates>=2,tiny=0")
	if err != nil || len(rules) != 3 || rules[1].Op != ">=" {
		t.Fatalf("%v %+v", err, rules)
	}
	r := &Report{Duplicates: make([]Pair, 2)}
	if got := r.Broken(rules); len(got) != 2 || got[0] != "duplicates>=2 (is 2)" || got[1] != "tiny=0 (is 0)" {
		t.Fatalf("broken: %q", got)
	}
	for _, bad := range []string{"over-limit", "nope>1", "tiny>x", "", "duplicates=NaN", "tiny>+Inf"} {
		if _, err := ParseRules(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestHistogram(t *testing.T) {
	h := histogram([]int32{0, 5, 20, 20, 9000})
	if len(h) != 12 || h[0] != (Bucket{From: 0, To: 1, Chunks: 1}) || h[1].Chunks != 1 || h[2] != (Bucket{From: 16, To: 32, Chunks: 2}) || h[11] != (Bucket{From: 8192, Chunks: 1}) {
		t.Fatalf("%+v", h)
	}
}

// Tiny chunks and duplicates carry a class saying who made them, and
// their first 80 characters; a local index's report names ragscope's
// chunker.
func TestTinyClasses(t *testing.T) {
	r := audit(Options{Limit: cohereLimit, OwnChunker: true},
		chunk("h", "a.md", "Setup", "### Setup\n\n#### IMU"),
		chunk("s", "a.md", "Part", "## Part\n\n---"),
		chunk("c", "a.md", "Code", "## Code\n\n  </robot>\n```"),
		chunk("t", "a.md", "Note", "## Note\n\nShort note here."),
		chunk("b1", "b.md", "Time", "## Time\n\nTakes two hours."),
		chunk("b2", "c.md", "Time", "## Time\n\nTakes two hours."),
		chunk("ok", "a.md", "Body", words(0, 60)),
	)
	got := map[string]string{}
	for _, c := range r.Tiny {
		got[c.ID] = c.Class
		if c.ByChunker != ByChunker(c.Class) {
			t.Errorf("%s: by_chunker %v for %s", c.ID, c.ByChunker, c.Class)
		}
	}
	want := map[string]string{"h": ClassHeadingOnly, "s": ClassSeparator, "c": ClassCodeRemnant, "t": ClassShortSection, "b1": ClassBoilerplate, "b2": ClassBoilerplate}
	if !maps.Equal(got, want) {
		t.Errorf("classes %v, want %v", got, want)
	}
	if r.TinyByChunker != 3 || r.Chunker != "ragscope" || r.Tiny[0].Start != "### Setup #### IMU" {
		t.Errorf("by chunker %d, chunker %q, start %q", r.TinyByChunker, r.Chunker, r.Tiny[0].Start)
	}
	if len(r.Duplicates) != 1 || r.Duplicates[0].Class != ClassBoilerplate || r.Duplicates[0].Start != "## Time Takes two hours." {
		t.Errorf("duplicates %+v", r.Duplicates)
	}
	if !slices.ContainsFunc(r.Summary, func(s string) bool {
		return strings.Contains(s, "6 chunks are tiny (heading only or under 16 tokens): 3 made by ragscope's chunker (heading only, separator, code remnant), 3 by the book")
	}) {
		t.Errorf("summary %q", r.Summary)
	}
	if s := start(strings.Repeat("word ", 40)); utf8.RuneCountInString(s) != 81 || !strings.HasSuffix(s, "…") {
		t.Errorf("start %q", s)
	}
}
