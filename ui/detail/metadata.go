package detail

import (
	"fmt"
	"strconv"
	"strings"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// explainText is e's lines for the detail pane ("" for nil).
func explainText(st *common.Styles, e *explain.Explanation, w int) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(st.Title.Render(common.WrapText(fmt.Sprintf("why this score (%s %.3f)", e.Scorer, e.Score), w)) + "\n")
	for _, l := range present.ExplainLines(e) {
		b.WriteString(st.Value.Render(common.WrapText(l, w)) + "\n")
	}
	return b.String()
}

// judgeText is the detail pane's judge line for it: "3 answers: reason",
// "not judged (invalid): why", "judging…" ("" when not judged).
func judgeText(it *common.Item) string {
	j := it.Judge
	switch {
	case j != nil && j.Grade != nil:
		s := strconv.Itoa(*j.Grade) + " " + present.GradeWord(*j.Grade)
		if r := termsafe.Line(j.Reason); r != "" {
			s += ": " + r
		}
		if j.Cached {
			s += " (cached)"
		}
		return s
	case j != nil:
		s := "not judged (" + termsafe.Line(string(j.Status)) + ")"
		if d := termsafe.Line(j.Detail); d != "" {
			s += ": " + d
		}
		return s
	case it.Judging:
		return "judging…"
	}
	return ""
}

// rerankRows adds the detail pane's rerank rows for a kept hit of a
// reranked result (only those have a movement): its rank and score in the
// store's order (the row is named after it: vector, hybrid, BM25), its
// rerank rank, relevance and movement.
func rerankRows(it *common.Item, row func(k, v string)) {
	if it.Move == nil {
		return
	}
	h := &it.Hit
	stage, score := it.Stage, "score "
	if stage == "vector" || stage == "" {
		stage, score = "vector", "similarity "
	}
	switch m := *it.Move; {
	case m.From > 0:
		row(stage, "#"+strconv.Itoa(m.From)+" · "+score+present.Score(h.VectorScore, 4))
	case h.VectorRank > 0:
		row(stage, "candidate #"+strconv.Itoa(h.VectorRank)+" (below the "+stage+" top k) · "+score+present.Score(h.VectorScore, 4))
	default:
		row(stage, "")
	}
	rel := h.Score
	if h.RerankScore != nil {
		rel = *h.RerankScore
	}
	row("rerank", "#"+strconv.Itoa(h.Rank)+" · relevance "+present.Score(rel, 4)+" · "+moveWords(*it.Move, stage))
}

// moveWords says a movement against stage's order in words for the
// detail pane.
func moveWords(m retrieval.Movement, stage string) string {
	switch m.Kind {
	case retrieval.MoveUp, retrieval.MoveDown:
		return m.String() + " from " + stage + " #" + strconv.Itoa(m.From)
	case retrieval.MoveNew:
		return "new: below the " + stage + " top k"
	}
	return "= same place"
}

// ScorePartsText shows what a hybrid score was blended from: "BM25 0.821
// (#4) · cosine 0.108 (#9) · title 1.00".
func ScorePartsText(sp *retrieval.ScoreParts) string {
	rank := func(r int) string {
		if r == 0 {
			return ""
		}
		return fmt.Sprintf(" (#%d)", r)
	}
	return fmt.Sprintf("BM25 %.3f%s · cosine %.3f%s · title %.2f", sp.BM25, rank(sp.BM25Rank), sp.Cosine, rank(sp.CosineRank), sp.Title)
}

// expectMetadata is the detail of an expected source the results do not
// hold: where it ranked, its score and what cut it.
func expectMetadata(st *common.Styles, e *retrieval.Expected, w int) string {
	var b strings.Builder
	b.WriteString(st.Title.Render(common.WrapText("◇ expected "+termsafe.Line(e.Ref), w)) + "\n")
	b.WriteString(st.LinkWarn.Render(common.WrapText(termsafe.Line(e.Detail), w)) + "\n")
	row := func(k, v string) {
		if v != "" {
			b.WriteString(st.Label.Render(common.PadRight(k, 12)) + st.Value.Render(common.Truncate(termsafe.Line(v), max(w-12, 4))) + "\n")
		}
	}
	row("rank", e.RankText())
	if e.ExactRank > 0 && e.ExactRank != e.Rank {
		row("exact rank", "#"+strconv.Itoa(e.ExactRank))
	}
	if e.Score != nil {
		row("score", present.Score(*e.Score, 4))
	}
	row("cut", e.Cut)
	row("doc path", e.DocPath)
	row("section", e.Section)
	row("best chunk", e.PointID)
	return b.String()
}
