package explain

import (
	"context"
	"slices"
	"sort"

	"ragscope/retrieval"
)

// SetCase is a missed case of a golden set: its id, its query as run and
// where its expected sources went.
type SetCase struct {
	ID       string
	Query    retrieval.Query
	Expected []retrieval.Expected
}

// Gap is a question word absent from the expected chunk in two or more
// missed cases, the expected chunks' words nearest to it, and the cases.
type Gap struct {
	Term    string   `json:"term"`
	Nearest []string `json:"nearest"`
	Cases   []string `json:"cases"`
}

// CaseExplanation is one missed case's expected source explained, with
// its one-line suggestion.
type CaseExplanation struct {
	ID         string       `json:"id"`
	Ref        string       `json:"ref"`
	Suggestion string       `json:"suggestion,omitempty"`
	Explain    *Explanation `json:"explain"`
}

// SetReport is a golden set's explanations: the vocabulary gaps across
// its missed cases, then each miss.
type SetReport struct {
	Gaps   []Gap             `json:"vocabulary_gaps"`
	Misses []CaseExplanation `json:"misses"`
	Notes  []string          `json:"notes,omitempty"`
}

// MinGapCases is how many missed cases a word must be absent in to be a
// vocabulary gap of the set.
const MinGapCases = 2

// ExplainSet explains each missed case's expected sources (their chunks
// read from their pages; no embedding: a set's dense scores are left
// unattributed) and gathers the set's vocabulary gaps.
func (x *Explainer) ExplainSet(ctx context.Context, cases []SetCase) (*SetReport, error) {
	rep := &SetReport{Gaps: []Gap{}, Misses: []CaseExplanation{}}
	y := *x
	y.Embedder, y.NoEmbedder = nil, "a set's dense scores are not attributed: query --explain QUESTION attributes one question's"
	for _, c := range cases {
		var targets []Target
		for i := range c.Expected {
			e := &c.Expected[i]
			if e.Found() {
				targets = append(targets, Target{ID: e.PointID, Rank: e.Rank, Expected: e})
			}
		}
		if len(targets) == 0 {
			continue
		}
		r, err := y.Explain(ctx, y.Start(ctx, c.Query.Question), c.Query, &retrieval.Result{}, targets)
		if err != nil {
			return rep, err
		}
		rep.Notes = append(rep.Notes, r.Notes...)
		for i, t := range targets {
			ce := CaseExplanation{ID: c.ID, Ref: t.Expected.Ref, Explain: r.Explained[i]}
			if ce.Explain != nil && len(ce.Explain.Suggestions) > 0 {
				ce.Suggestion = ce.Explain.Suggestions[0]
			}
			rep.Misses = append(rep.Misses, ce)
		}
	}
	rep.Gaps = gaps(rep.Misses)
	return rep, nil
}

// gaps are the words absent from the expected chunk in MinGapCases or
// more cases, most cases first.
func gaps(misses []CaseExplanation) []Gap {
	type acc struct {
		cases []string
		near  map[string]float64
		count map[string]int
	}
	by := map[string]*acc{}
	for _, m := range misses {
		if m.Explain == nil {
			continue
		}
		for _, ms := range m.Explain.Missing {
			a := by[ms.Term]
			if a == nil {
				a = &acc{near: map[string]float64{}, count: map[string]int{}}
				by[ms.Term] = a
			}
			if !slices.Contains(a.cases, m.ID) {
				a.cases = append(a.cases, m.ID)
			}
			for _, n := range ms.Nearest {
				a.count[n.Word]++
				a.near[n.Word] = max(a.near[n.Word], n.Similarity)
			}
		}
	}
	out := []Gap{}
	for term, a := range by {
		if len(a.cases) < MinGapCases {
			continue
		}
		g := Gap{Term: term, Cases: a.cases, Nearest: []string{}}
		for w := range a.near {
			g.Nearest = append(g.Nearest, w)
		}
		sort.Slice(g.Nearest, func(i, j int) bool {
			wi, wj := g.Nearest[i], g.Nearest[j]
			if a.count[wi] != a.count[wj] {
				return a.count[wi] > a.count[wj]
			}
			if a.near[wi] != a.near[wj] {
				return a.near[wi] > a.near[wj]
			}
			return wi < wj
		})
		g.Nearest = g.Nearest[:min(len(g.Nearest), nearK)]
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Cases) != len(out[j].Cases) {
			return len(out[i].Cases) > len(out[j].Cases)
		}
		return out[i].Term < out[j].Term
	})
	return out
}
