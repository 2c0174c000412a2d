// Package eval runs golden question sets against a retrieval.Pipeline and
// measures retrieval quality with deterministic IR metrics (hit@1, hit@k,
// MRR, nDCG@k, recall@k, keyword coverage, metadata completeness) and
// latency, judges the run against thresholds, compares it with a baseline
// report and suggests a score threshold. It imports no UI and no network
// client: the pipeline's Embedder and Store are the only I/O.
//
// The file format, the metric formulas and the JSON report are documented
// in README.md next to this file.
package eval

import (
	"errors"
	"fmt"
	"strings"

	"ragscope/retrieval"
)

// DefaultTopK is the top_k of a case when neither the case, the run
// options nor the set give one.
const DefaultTopK = retrieval.DefaultTopK

// Set is a golden question set.
type Set struct {
	// Name names the set in reports (the file's `name`, else its base name).
	Name string `json:"name"`
	// Source is where the set was read from (a file path, or "embedded").
	Source string `json:"source,omitempty"`
	// TopK is the set's default top_k (0: not given).
	TopK int `json:"top_k,omitempty"`
	// Threshold is the set's score threshold for every query (nil: not given).
	Threshold *float64 `json:"threshold,omitempty"`
	// Thresholds are the pass/fail limits written in the file.
	Thresholds Thresholds `json:"thresholds"`
	// Cases are the questions, in file order.
	Cases []Case `json:"cases"`
}

// Thresholds are the run-level pass/fail limits. A nil field is not checked.
type Thresholds struct {
	// MinHitAtK is the lowest acceptable mean hit@k over ranking cases (0..1).
	MinHitAtK *float64 `json:"min_hit_at_k,omitempty"`
	// MinMRR is the lowest acceptable mean reciprocal rank (0..1).
	MinMRR *float64 `json:"min_mrr,omitempty"`
	// MaxP95MS is the highest acceptable 95th percentile of total latency.
	MaxP95MS *float64 `json:"max_p95_ms,omitempty"`
	// MinKeywordCoverage is the lowest acceptable mean keyword coverage
	// over the cases that list keywords (0..1).
	MinKeywordCoverage *float64 `json:"min_keyword_coverage,omitempty"`
}

// Merge returns t with every field that o sets replaced by o's value
// (flags over the file).
func (t Thresholds) Merge(o Thresholds) Thresholds {
	if o.MinHitAtK != nil {
		t.MinHitAtK = o.MinHitAtK
	}
	if o.MinMRR != nil {
		t.MinMRR = o.MinMRR
	}
	if o.MaxP95MS != nil {
		t.MaxP95MS = o.MaxP95MS
	}
	if o.MinKeywordCoverage != nil {
		t.MinKeywordCoverage = o.MinKeywordCoverage
	}
	return t
}

// Case is one golden question and what a good retrieval looks like.
type Case struct {
	// ID identifies the case; "case-N" (N from 1, file order) when missing.
	ID       string `json:"id"`
	Question string `json:"question"`
	// Category groups cases in the per-category breakdown.
	Category string         `json:"category,omitempty"`
	Mode     retrieval.Mode `json:"mode"`
	// SelectedText, SourceDocPath and SourceSection are used in
	// selected-text mode.
	SelectedText  string `json:"selected_text,omitempty"`
	SourceDocPath string `json:"source_doc_path,omitempty"`
	SourceSection string `json:"source_section,omitempty"`
	// TopK overrides the run's top_k for this case (0: not given).
	TopK    int               `json:"top_k,omitempty"`
	Filters retrieval.Filters `json:"filters"`
	Expect  Expect            `json:"expect"`
	// Line is the case's line in its file (0 when unknown).
	Line int `json:"-"`
}

// Expect is what a case expects of its retrieval. A hit is relevant when
// it matches any of Modules, Chapters, DocPaths or URLs.
type Expect struct {
	Modules  []string `json:"modules,omitempty"`
	Chapters []string `json:"chapters,omitempty"`
	// DocPaths match a chunk's doc path with or without "docs/" or
	// "website/docs/" and the .md/.mdx extension; one ending in "/" matches
	// every document under that folder.
	DocPaths []string `json:"doc_paths,omitempty"`
	// URLs match a hit's citation URL exactly when they carry a #anchor,
	// else as a prefix of the page URL at a path boundary. A URL without a
	// scheme is compared with the path of the citation URL.
	URLs []string `json:"urls,omitempty"`
	// Keywords must appear (case-insensitively) in the retrieved text.
	Keywords []string `json:"keywords,omitempty"`
	// MaxLatencyMS bounds the case's total latency (0: no bound).
	MaxLatencyMS float64 `json:"max_latency_ms,omitempty"`
	// NoAnswer says nothing relevant exists: no hit may reach MaxScore (or,
	// when MaxScore is nil, the run's threshold).
	NoAnswer bool     `json:"no_answer,omitempty"`
	MaxScore *float64 `json:"max_score,omitempty"`
	// Refuse and AnswerKeywords are answer-level expectations (the chatbot
	// should decline; its answer should contain these words). They are
	// judged when a run generates answers (Options.Generator, CheckAnswer)
	// and reported as "answer check: not run" otherwise.
	Refuse         bool     `json:"refuse,omitempty"`
	AnswerKeywords []string `json:"answer_keywords,omitempty"`
	// NotRelevant are the pages and sections an author marked not
	// relevant to the question (the explorer's marks). They do not change
	// the case's kind or status: they give the report a precision over
	// the labelled hits and a note when one ranks above the relevant one.
	NotRelevant NotRelevant `json:"not_relevant,omitzero"`
}

// NotRelevant lists hits judged not relevant, matched as Expect's DocPaths
// and URLs are. A hit that an expectation makes relevant is never counted
// as not relevant.
type NotRelevant struct {
	DocPaths []string `json:"doc_paths,omitempty"`
	URLs     []string `json:"urls,omitempty"`
}

// IsEmpty reports whether n labels nothing.
func (n NotRelevant) IsEmpty() bool { return len(n.DocPaths)+len(n.URLs) == 0 }

// AnswerChecks names the answer-level expectations of e (nil: none).
func (e Expect) AnswerChecks() []string {
	var out []string
	if e.Refuse {
		out = append(out, "refuse")
	}
	if len(e.AnswerKeywords) > 0 {
		out = append(out, "answer_keywords")
	}
	return out
}

// HasRelevance reports whether e can judge a hit relevant (it names a
// module, chapter, doc path or URL).
func (e Expect) HasRelevance() bool {
	return len(e.Modules)+len(e.Chapters)+len(e.DocPaths)+len(e.URLs) > 0
}

// knownItems is the number of distinct expected documents (doc paths and
// URLs), the denominator of recall@k; 0 when the case names none.
func (e Expect) knownItems() int {
	return len(dedupStrings(e.DocPaths)) + len(dedupStrings(e.URLs))
}

// IsRanking reports whether c counts in the ranking metrics (hit@k, MRR,
// nDCG, recall): a normal-mode case with a relevance expectation.
func (c Case) IsRanking() bool {
	return c.mode() == retrieval.ModeNormal && !c.Expect.NoAnswer && c.Expect.HasRelevance()
}

func (c Case) mode() retrieval.Mode {
	if c.Mode == "" {
		return retrieval.ModeNormal
	}
	return c.Mode
}

// Categories returns the distinct categories of s in first-seen order
// ("" for uncategorised cases).
func (s Set) Categories() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range s.Cases {
		if !seen[c.Category] {
			seen[c.Category] = true
			out = append(out, c.Category)
		}
	}
	return out
}

// ErrNoCases is returned by FilterCategories when no case is left.
var ErrNoCases = errors.New("no cases")

// FilterCategories returns s keeping only the cases whose category is one
// of cats (case-insensitive). An empty cats keeps every case.
func (s Set) FilterCategories(cats []string) (Set, error) {
	if len(cats) == 0 {
		return s, nil
	}
	want := map[string]bool{}
	for _, c := range cats {
		want[strings.ToLower(strings.TrimSpace(c))] = true
	}
	out := s
	out.Cases = nil
	for _, c := range s.Cases {
		if want[strings.ToLower(c.Category)] {
			out.Cases = append(out.Cases, c)
		}
	}
	if len(out.Cases) == 0 {
		return out, fmt.Errorf("%w in categories %s (the set has: %s)", ErrNoCases,
			strings.Join(cats, ", "), strings.Join(s.Categories(), ", "))
	}
	return out, nil
}

func dedupStrings(in []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
