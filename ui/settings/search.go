package settings

import (
	"math"
	"slices"
	"strconv"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// adjustRerank changes a rerank row by one step.
func (p *Model) adjustRerank(up bool) {
	if len(p.RerankModels) == 0 {
		return
	}
	r := &p.Params.Rerank
	switch p.Row {
	case RowRerank:
		r.On = !r.On
	case RowRerankModel:
		i := slices.Index(p.RerankModels, p.RerankModel)
		n := len(p.RerankModels)
		if up {
			i = (i + 1) % n
		} else {
			i = (i - 1 + n) % n
		}
		p.RerankModel = p.RerankModels[i]
	case rowRerankCandidates:
		c := r.Candidates
		if up {
			c++
		} else {
			c--
		}
		r.Candidates = min(max(c, 1), retrieval.MaxRerankCandidates)
	case rowRerankThreshold:
		d := -0.05
		if up {
			d = 0.05
		}
		r.Threshold = min(max(math.Round((r.Threshold+d)*100)/100, 0), 1)
	}
}

// toggleRerankRow is space on a rerank row: it turns reranking on or off.
func (p *Model) toggleRerankRow() {
	if len(p.RerankModels) > 0 && p.Row == RowRerank {
		p.Params.Rerank.On = !p.Params.Rerank.On
	}
}

// rerankValue draws a rerank row's value.
func (p *Model) rerankValue(row int) string {
	if len(p.RerankModels) == 0 {
		if row == RowRerank {
			return p.Styles.Missing.Render("not available with this backend")
		}
		return p.Styles.Missing.Render("–")
	}
	r := p.Params.Rerank
	switch row {
	case RowRerank:
		return "[" + common.Check(r.On) + "] rerank the candidates (also r)"
	case RowRerankModel:
		i := slices.Index(p.RerankModels, p.RerankModel)
		return "‹ " + termsafe.Line(p.RerankModel) + " › " + p.Styles.Meta.Render("("+strconv.Itoa(i+1)+"/"+strconv.Itoa(len(p.RerankModels))+")")
	case rowRerankCandidates:
		n := retrieval.CandidateLimit(retrieval.Query{TopK: p.Params.TopK, Rerank: retrieval.RerankOptions{On: true, Candidates: r.Candidates}})
		return "‹ " + strconv.Itoa(r.Candidates) + " › " + p.Styles.Meta.Render("× top_k: "+strconv.Itoa(n)+" searched and reranked")
	}
	full, empty := common.ScoreBar(r.Threshold, 10)
	return "‹ " + present.Score(r.Threshold, 2) + " › " + p.Styles.BarFull.Render(full) + p.Styles.BarEmpty.Render(empty) + p.Styles.Meta.Render(" min relevance")
}

// SearchModeLabel describes mode with label, or by its name.
func SearchModeLabel(label func(string) string, mode string) string {
	if label == nil {
		return termsafe.Line(mode)
	}
	return termsafe.Line(label(mode))
}

// shown reports whether settings row r is drawn: the local search row
// only when the backend offers modes.
func (p *Model) shown(r int) bool {
	return (r != RowLocalSearch || len(p.SearchModes) > 0) && (r != RowExact || p.ExactOffered) && (r != RowCompare || len(p.CompareSetups) > 0)
}

// move puts the cursor on the next shown row in direction d (±1), if any.
func (p *Model) move(d int) {
	for r := p.Row + d; r >= 0 && r < RowCount; r += d {
		if p.shown(r) {
			p.Row = r
			return
		}
	}
}

// adjustSearchMode steps the local search mode, round the modes.
func (p *Model) adjustSearchMode(up bool) {
	n := len(p.SearchModes)
	if n == 0 {
		return
	}
	i := slices.Index(p.SearchModes, p.Params.SearchMode)
	switch {
	case i < 0:
		i = 0
	case up:
		i = (i + 1) % n
	default:
		i = (i - 1 + n) % n
	}
	p.Params.SearchMode = p.SearchModes[i]
}

// searchModeValue draws the local search row's value.
func (p *Model) searchModeValue() string {
	mode := p.Params.SearchMode
	i := slices.Index(p.SearchModes, mode)
	return "‹ " + termsafe.Line(mode) + " › " + p.Styles.Meta.Render("("+strconv.Itoa(i+1)+"/"+strconv.Itoa(len(p.SearchModes))+") "+SearchModeLabel(p.SearchLabel, mode))
}
