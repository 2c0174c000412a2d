package turns

import (
	"cmp"
	"strconv"
	"strings"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// answerLine sums up a turn's answer in one line for the turn comparison.
func answerLine(t *common.Turn) string {
	st := t.Answer
	if st == nil {
		return "not asked"
	}
	a := st.Answer()
	if a.Refused {
		return "refused (nothing sent: the context was insufficient)"
	}
	var s string
	switch st.Phase {
	case common.AnswerStreaming:
		s = "streaming · "
	case common.AnswerCancelled:
		s = "cancelled · "
	case common.AnswerFailed:
		s = "failed · "
	}
	if len(a.Cited) == 0 {
		s += "cites nothing"
	} else {
		cited := make([]string, len(a.Cited))
		for i, r := range a.Cited {
			cited[i] = strconv.Itoa(r)
		}
		s += "cites [" + strings.Join(cited, ",") + "]"
	}
	if n := len(a.Warnings(st.Sufficient)); n > 0 && st.Phase == common.AnswerDone {
		s += " · " + present.Count(n, "warning", "warnings")
	}
	if st.Faith != nil {
		s += " · " + common.FaithLine(st.Faith)
	}
	if text := termsafe.Line(a.Annotated()); text != "" {
		s += " · " + text
	}
	return s
}

// answerCompare is the turn comparison's line for each turn's answer.
func answerCompare(cur, old *common.Turn, w int) string {
	return common.Truncate("answer #"+strconv.Itoa(cur.N)+": "+answerLine(cur), w) + "\n" +
		common.Truncate("answer #"+strconv.Itoa(old.N)+": "+answerLine(old), w) + "\n"
}

// expectCompare says how the expected sources moved from old to cur:
// "expected docs/a.md #23 → #4 (cut by top_k 5 → in the results at #4)".
func expectCompare(old, cur *common.Turn) []string {
	var out []string
	for _, ref := range cur.Expect {
		ne := findExpected(cur, ref)
		oe := findExpected(old, ref)
		if ne == nil && oe == nil {
			continue
		}
		out = append(out, "expected "+termsafe.Line(ref)+" "+expectRank(oe)+" → "+expectRank(ne)+" ("+expectCut(oe)+" → "+expectCut(ne)+")")
	}
	return out
}

func findExpected(t *common.Turn, ref string) *retrieval.Expected {
	if t == nil || t.Diag == nil {
		return nil
	}
	for i := range t.Diag.Expected {
		if t.Diag.Expected[i].Ref == ref {
			return &t.Diag.Expected[i]
		}
	}
	return nil
}

func expectRank(e *retrieval.Expected) string {
	switch {
	case e == nil:
		return "?"
	case !e.Found():
		return "none"
	}
	return cmp.Or(e.RankText(), "?")
}

func expectCut(e *retrieval.Expected) string {
	switch {
	case e == nil:
		return "not diagnosed"
	case e.Cut == retrieval.CutNone:
		return "kept"
	}
	return e.Detail
}

// judgeTag is a judged turn's judged precision for the turn list:
// " · judged p 0.60" ("" when not judged).
func judgeTag(t *common.Turn) string {
	if t.Judge == nil || t.Judge.Grades == nil {
		return ""
	}
	if mt := judge.Case(t.Judge.Grades, 0); mt.Precision != nil {
		return " · judged p " + present.Score(*mt.Precision, 2)
	}
	return " · not judged"
}

// searchModeDiff says how two queries' search modes differ, for the turn
// comparison ("" when alike or when one of them searched nothing).
func searchModeDiff(a, b retrieval.Query) string {
	if a.SearchMode == b.SearchMode || a.SearchMode == "" || b.SearchMode == "" {
		return ""
	}
	return "local search " + termsafe.Line(a.SearchMode) + "→" + termsafe.Line(b.SearchMode)
}

// searchModeTag marks a turn searched in another mode than the default
// plain in the turn list ("[bm25] ").
func searchModeTag(mode, plain string) string {
	if mode == "" || mode == plain {
		return ""
	}
	return "[" + termsafe.Line(mode) + "] "
}

// RerankTag marks a reranked turn in the turn list.
func RerankTag(res *retrieval.Result) string {
	switch {
	case res.Rerank == nil:
		return ""
	case res.Rerank.Err != nil:
		return "[rerank failed] "
	}
	return "[rerank " + termsafe.Line(res.Rerank.Model) + "] "
}

// rerankParamsDiff lists the rerank settings that differ between two
// queries.
func rerankParamsDiff(a, b retrieval.Query) []string {
	ra, rb := a.Rerank, b.Rerank
	if ra.On != rb.On {
		return []string{"rerank " + present.OnOff(ra.On) + "→" + present.OnOff(rb.On)}
	}
	if !ra.On {
		return nil
	}
	var parts []string
	if ra.Candidates != rb.Candidates {
		parts = append(parts, "candidates ×"+strconv.Itoa(ra.Candidates)+"→×"+strconv.Itoa(rb.Candidates))
	}
	if ra.Threshold != rb.Threshold {
		parts = append(parts, "relevance ≥ "+present.Score(ra.Threshold, 2)+"→"+present.Score(rb.Threshold, 2))
	}
	return parts
}

// rerankCompare says what the scores of a comparison are when reranking
// differs between the turns ("" when neither was reranked): relevance
// for a reranked turn, similarity for a vector one.
func rerankCompare(old, cur *retrieval.Result) string {
	if old.Rerank == nil && cur.Rerank == nil {
		return ""
	}
	kind := func(r *retrieval.Result) string {
		first := "vector similarity"
		if st := present.FirstStage(r.Params.Ranking); st != "vector" {
			first = st + " score"
		}
		switch {
		case r.Rerank == nil:
			return first
		case r.Rerank.Err != nil:
			return first + " (rerank failed)"
		}
		return termsafe.Line(r.Rerank.Model) + " relevance"
	}
	return "scores: now " + kind(cur) + " · was " + kind(old)
}
