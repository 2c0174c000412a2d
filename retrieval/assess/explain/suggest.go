package explain

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"ragscope/retrieval"
)

// MaxTopK is the largest -k a query takes.
const MaxTopK = 100

// suggest is the expected chunk's suggestions, each from a measured fact:
// the cut it met, the words it lacks, its length against the model's
// input limit, and the words the winner has.
func (x *Explainer) suggest(ctx context.Context, q retrieval.Query, res *retrieval.Result, exp *retrieval.Expected, e *Explanation) []string {
	out := []string{}
	if s := x.cutSuggestion(ctx, q, exp); s != "" {
		out = append(out, s)
	}
	var lacks, words []string
	for _, m := range e.Missing {
		words = append(words, m.Term)
		w := quote(m.Term)
		if len(m.Nearest) > 0 {
			w += fmt.Sprintf(" (it says %s %.2f)", quote(m.Nearest[0].Word), m.Nearest[0].Similarity)
		}
		lacks = append(lacks, w)
	}
	if len(lacks) > 0 && exp.Cut != retrieval.CutNone {
		out = append(out, "the page lacks "+strings.Join(lacks, ", ")+": say it in the page or test it with --what-if-add "+exp.Ref+"=\""+strings.Join(words, " ")+"\"")
	}
	for _, t := range e.Terms {
		if t.Form != "" && exp.Cut != retrieval.CutNone {
			out = append(out, fmt.Sprintf("the page says %s where the question says %s: the lexical search counts exact words only", quote(t.Form), quote(t.Term)))
		}
	}
	if e.TokenLimit > 0 && e.Tokens > e.TokenLimit {
		out = append(out, fmt.Sprintf("the expected chunk is %s tokens, over the model's %s: the match may sit in the text the model never saw", thousands(e.Tokens), thousands(e.TokenLimit)))
	}
	if v := e.Versus; v != nil && len(v.WinnerOnly) > 0 && exp.Cut != retrieval.CutNone {
		out = append(out, fmt.Sprintf("the #1 hit wins on %s, which this chunk lacks", quoteAll(v.WinnerOnly)))
	}
	return out
}

// cutSuggestion is the way past the cut the expected chunk met.
func (x *Explainer) cutSuggestion(ctx context.Context, q retrieval.Query, exp *retrieval.Expected) string {
	switch exp.Cut {
	case retrieval.CutTopK:
		switch {
		case exp.Beyond:
			return "it ranks beyond #1,000: no -k reaches it; the page's words must change"
		case exp.Rank > MaxTopK:
			return fmt.Sprintf("it ranks #%d, beyond the largest -k (%d): the page's words must change", exp.Rank, MaxTopK)
		case exp.Rank > 0:
			return fmt.Sprintf("-k %d would include it (it ranks #%d)", exp.Rank, exp.Rank)
		}
	case retrieval.CutThreshold:
		if exp.Score != nil {
			t := math.Floor(*exp.Score*100) / 100
			return fmt.Sprintf("--threshold %.2f would keep it (its score %.3f is below %.2f)", t, *exp.Score, q.Threshold)
		}
	case retrieval.CutFilter:
		if c, ok := x.Store.(retrieval.Counter); ok {
			if n, err := c.Count(ctx, q.Filters); err == nil && n == 0 {
				return "the filter leaves 0 points: " + q.Filters.String() + " matches nothing in the collection"
			}
		}
		return "the filter " + q.Filters.String() + " leaves it out: drop it or add the chunk's values"
	case retrieval.CutDuplicate:
		return "it was folded into a near-duplicate: --no-dedup keeps it"
	case retrieval.CutRerank:
		return fmt.Sprintf("the reranker moved it out: without --rerank it ranks #%d", exp.Rank)
	case retrieval.CutApproximate:
		return fmt.Sprintf("--exact finds it (exact rank #%d): the approximate index missed it", exp.ExactRank)
	}
	return ""
}

func quote(s string) string { return "\"" + s + "\"" }

func quoteAll(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = quote(w)
	}
	return strings.Join(q, ", ")
}

// thousands writes n with comma thousands separators (1,480).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
