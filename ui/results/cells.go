package results

import (
	"strconv"
	"strings"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// reranked reports whether res is in a reranker's order.
func reranked(res *retrieval.Result) bool { return res.Rerank != nil && res.Rerank.Err == nil }

// rerankMoves are the movements of res's hits against the store's order,
// nil when res was not reranked.
func rerankMoves(res *retrieval.Result) []retrieval.Movement {
	if !reranked(res) {
		return nil
	}
	return res.Movements()
}

// MoveCell is the movement column of a result row, 4 cells wide.
func MoveCell(m retrieval.Movement) string {
	return strings.TrimSuffix(common.PadRight(m.String(), 5), " ")
}

// VectorCell is a reranked hit's place before reranking and its score:
// its rank in the store's result ("vector #4 0.612", "hybrid #4 0.431":
// what the movement counts from; stage names the ranking), or for a hit
// new to the top k its place among the candidates searched ("candidate #9
// 0.480").
func VectorCell(h *retrieval.Hit, m retrieval.Movement, stage string) string {
	switch {
	case m.From > 0:
		return stage + " #" + strconv.Itoa(m.From) + " " + present.Score(h.VectorScore, 3)
	case h.VectorRank > 0:
		return "candidate #" + strconv.Itoa(h.VectorRank) + " " + present.Score(h.VectorScore, 3)
	}
	return stage + " –"
}

// RerankTitle is the results title's rerank part.
func RerankTitle(res *retrieval.Result) string {
	switch {
	case res.Rerank == nil:
		return ""
	case res.Rerank.Err != nil:
		return " · rerank failed: " + present.FirstStage(res.Params.Ranking) + " order"
	}
	return " · reranked by " + termsafe.Line(res.Rerank.Model)
}

// FellOutLine names the hits of the store's top k that reranking left
// out, under the result list; "" when none did.
func FellOutLine(res *retrieval.Result) string {
	if !reranked(res) || len(res.Rerank.FellOut) == 0 {
		return ""
	}
	parts := make([]string, len(res.Rerank.FellOut))
	for i := range res.Rerank.FellOut {
		h := &res.Rerank.FellOut[i]
		parts[i] = "#" + strconv.Itoa(h.Rank) + " " + present.Title(&h.Chunk)
	}
	return "fell out of the " + present.FirstStage(res.Params.Ranking) + " top " + strconv.Itoa(res.Params.TopK) + ": " + strings.Join(parts, " · ")
}

// footer is the text under the result list, at most two lines: what
// reranking pushed out of the vector top k.
func (p *Model) footer() string {
	f := FellOutLine(&p.Res)
	if f == "" {
		return ""
	}
	iw, _ := common.InnerSize(p.Styles.Pane, p.Width, p.Height)
	lines := strings.Split(common.WrapText(f, max(iw, 10)), "\n")
	if len(lines) > 2 {
		lines = lines[:2]
		lines[1] = common.Truncate(lines[1]+" …", iw)
	}
	return strings.Join(lines, "\n")
}

// footerLines is the height of the footer.
func (p *Model) footerLines() int {
	if f := p.footer(); f != "" {
		return strings.Count(f, "\n") + 1
	}
	return 0
}

// gradeCells are the grade column's cells of the grades 0-3, two bytes
// each (a cell is a slice of it: no allocation per row).
const gradeCells = "g0g1g2g3"

// gradeCell is a row's grade column: "g3", "g?" (not graded: the detail
// says why), "g…" while judging, "g–" for a hit the judge was not asked
// about.
func gradeCell(it *common.Item) string {
	switch j := it.Judge; {
	case j != nil && j.Grade != nil && *j.Grade >= 0 && *j.Grade <= 3:
		return gradeCells[2**j.Grade : 2**j.Grade+2]
	case j != nil:
		return "g?"
	case it.Judging:
		return "g…"
	}
	return "g–"
}
