package eval

import (
	"fmt"
	"strings"

	"ragscope/retrieval"
)

// Evaluate scores one case's result: relevance grades, metrics, the
// selected-text and no-answer checks, the latency bound and the status.
func Evaluate(c Case, q retrieval.Query, res retrieval.Result) CaseResult {
	cr := CaseResult{
		ID: c.ID, Question: c.Question, Category: c.Category, Kind: KindOf(c), Mode: c.mode(),
		Query: q, Status: StatusPass, Reasons: []string{}, AnswerCheck: answerCheck(c), Expect: c.Expect,
		Latency: Latency{
			EmbedMS: ms(res.Timings.Embed), SearchMS: ms(res.Timings.Search),
			PostMS: ms(res.Timings.Post), TotalMS: ms(res.Timings.Total),
		},
	}
	k := q.TopK
	kept := res.Hits
	if len(kept) > k {
		kept = kept[:k]
	}
	grades := cr.gradeHits(kept, res.Dropped, c.Expect)
	var miss, fail []string
	switch cr.Kind {
	case KindRanking:
		miss = cr.rank(grades, kept, res.Arms, c.Expect, k)
	case KindNoAnswer:
		fail = cr.checkNoAnswer(c, q)
	case KindSelectedText:
		fail = append(fail, checkSelection(c, res)...)
	}
	miss = append(miss, cr.checkKeywords(c.Expect.Keywords, kept)...)
	if max := c.Expect.MaxLatencyMS; max > 0 && cr.Latency.TotalMS > max {
		fail = append(fail, fmt.Sprintf("latency %.1f ms is above max_latency_ms %g", cr.Latency.TotalMS, max))
	}
	switch {
	case len(fail) > 0:
		cr.Status = StatusFail
	case len(miss) > 0:
		cr.Status = StatusMiss
	}
	cr.Reasons = append(append(cr.Reasons, fail...), miss...)
	return cr
}

// gradeHits grades the kept hits and those the threshold cut, fills the
// case's hits, labels, top score and metadata completeness, and returns
// the kept hits' grades.
func (cr *CaseResult) gradeHits(kept []retrieval.Hit, dropped []retrieval.DroppedHit, e Expect) []int {
	grades := make([]int, len(kept))
	cr.Hits = make([]HitResult, 0, len(kept)+len(dropped))
	for i, h := range kept {
		grades[i] = Grade(h, e)
		cr.Hits = append(cr.Hits, hitResult(h, grades[i], false))
	}
	for _, d := range dropped {
		if d.Reason == retrieval.ReasonBelowThreshold {
			cr.Hits = append(cr.Hits, hitResult(d.Hit, Grade(d.Hit, e), true))
		}
	}
	cr.Labels = caseLabels(kept, grades, e, cr.Hits)
	if len(kept) > 0 {
		top := kept[0].Score
		cr.TopScore = &top
		var md float64
		for _, h := range cr.Hits[:len(kept)] {
			md += h.Metadata
		}
		md /= float64(len(kept))
		cr.MetadataCompleteness = &md
	}
	return grades
}

// rank fills a ranking case's figures (hit@1, hit@k, MRR, nDCG, recall,
// each arm's) from the kept hits' grades and returns its miss, if any.
func (cr *CaseResult) rank(grades []int, kept []retrieval.Hit, arms []retrieval.ArmList, e Expect, k int) []string {
	cr.HitAt1 = HitAt(grades, 1)
	cr.HitAtK = HitAt(grades, k)
	cr.FirstRelevantRank = FirstRelevantRank(grades, k)
	cr.ReciprocalRank = ReciprocalRank(grades, k)
	cr.NDCG = NDCG(grades, grades, k)
	cr.Arms = armFigures(arms, e, k)
	cr.KnownItems = e.knownItems()
	if cr.KnownItems > 0 {
		cr.FoundItems = foundItems(kept, e)
		cr.Recall = Recall(cr.FoundItems, cr.KnownItems)
	} else {
		cr.Recall = b2f(cr.HitAtK)
	}
	if !cr.HitAtK {
		return []string{fmt.Sprintf("no relevant hit in the top %d%s", k, topText(kept))}
	}
	return nil
}

// checkNoAnswer fails a no-answer case when a top-k hit, kept or cut by
// the run threshold, reaches max_score (or the threshold): max_score
// stands on its own.
func (cr *CaseResult) checkNoAnswer(c Case, q retrieval.Query) []string {
	limit, what := q.Threshold, "the threshold"
	if c.Expect.MaxScore != nil {
		limit, what = *c.Expect.MaxScore, "max_score"
	}
	for _, h := range cr.Hits {
		if h.Score >= limit {
			return []string{fmt.Sprintf("no-answer: %s scored %.3f, reaching %s %.3f", hitResultName(h), h.Score, what, limit)}
		}
	}
	return nil
}

// checkKeywords fills the keyword coverage of the kept hits' text and
// returns the miss when some keyword is missing.
func (cr *CaseResult) checkKeywords(keywords []string, kept []retrieval.Hit) []string {
	if len(keywords) == 0 {
		return nil
	}
	var text strings.Builder
	for _, h := range kept {
		text.WriteString(h.Chunk.Text)
		text.WriteByte('\n')
	}
	cov, missing := KeywordCoverage(keywords, text.String())
	cr.KeywordCoverage = &cov
	cr.MissingKeywords = missing
	if len(missing) > 0 {
		return []string{"missing keywords: " + strings.Join(missing, ", ")}
	}
	return nil
}

// checkSelection: the grounded context must hold the selection and
// nothing retrieved (only the synthetic "selection" hit), under the
// selected-text instruction.
func checkSelection(c Case, res retrieval.Result) []string {
	var fail []string
	if !strings.Contains(res.Grounded.Context, strings.TrimSpace(c.SelectedText)) {
		fail = append(fail, "selected text: the grounded context does not contain the selection")
	}
	for _, h := range res.Hits {
		if h.Chunk.ID != "selection" {
			fail = append(fail, fmt.Sprintf("selected text: retrieved chunk %q is in the context", h.Chunk.ID))
			break
		}
	}
	if len(res.Hits) != 1 || len(res.Dropped) > 0 {
		fail = append(fail, fmt.Sprintf("selected text: want exactly the one selection hit, got %d hits and %d dropped", len(res.Hits), len(res.Dropped)))
	}
	if strings.Contains(res.Grounded.Context, "[Source ") {
		fail = append(fail, "selected text: the context has retrieved [Source N] blocks")
	}
	if res.Grounded.Instruction != retrieval.InstructionSelectedText {
		fail = append(fail, "selected text: the instruction is not the selected-text instruction")
	}
	return fail
}

func hitResult(h retrieval.Hit, grade int, below bool) HitResult {
	hr := HitResult{
		Rank: h.Rank, Score: h.Score, Grade: grade, Relevant: grade > 0,
		ChunkID: h.Chunk.ID, Title: h.Chunk.Title, Section: h.Chunk.Section,
		DocPath: hitDocPath(h), URL: hitURL(h), Module: h.Chunk.Module, Chapter: h.Chunk.Chapter,
		BelowThreshold: below,
	}
	if below {
		hr.Rank = 0
	}
	present := 0
	check := func(name string, ok bool) {
		if ok {
			present++
		} else {
			hr.MissingMetadata = append(hr.MissingMetadata, name)
		}
	}
	check("text", strings.TrimSpace(h.Chunk.Text) != "")
	check("url", hitURL(h) != "")
	check("title", h.Chunk.Title != "")
	check("section", h.Chunk.Section != "")
	check("module/chapter", h.Chunk.Module != "" || h.Chunk.Chapter != "")
	hr.Metadata = float64(present) / 5
	return hr
}

func hitName(h retrieval.Hit) string {
	if p := hitDocPath(h); p != "" {
		return p
	}
	if u := hitURL(h); u != "" {
		return u
	}
	return h.Chunk.ID
}

// Name names the hit in reports: its doc path, else its URL, else its
// chunk id.
func (h HitResult) Name() string {
	switch {
	case h.DocPath != "":
		return h.DocPath
	case h.URL != "":
		return h.URL
	}
	return h.ChunkID
}

func hitResultName(h HitResult) string {
	name := h.Name()
	if h.Rank > 0 {
		return fmt.Sprintf("#%d %s", h.Rank, name)
	}
	return name + " (cut by the threshold)"
}

func topText(kept []retrieval.Hit) string {
	if len(kept) == 0 {
		return " (no hits)"
	}
	return fmt.Sprintf(" (#1 was %s)", hitName(kept[0]))
}

// armFigures grades each arm's own ranking of a fused search to k: its
// hit@k and reciprocal rank alone.
func armFigures(arms []retrieval.ArmList, e Expect, k int) []ArmFigures {
	if len(arms) == 0 {
		return nil
	}
	out := make([]ArmFigures, len(arms))
	for i, a := range arms {
		hits := a.Hits
		if len(hits) > k {
			hits = hits[:k]
		}
		grades := make([]int, len(hits))
		for j, sc := range hits {
			h := retrieval.Hit{Rank: j + 1, Score: sc.Score, Chunk: sc.Chunk}
			if j < len(a.Cites) {
				h.Citation = a.Cites[j]
			}
			grades[j] = Grade(h, e)
		}
		out[i] = ArmFigures{Label: a.Label, Vector: a.Vector, HitAtK: b2f(HitAt(grades, k)), MRR: ReciprocalRank(grades, k)}
	}
	return out
}
