package eval

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
	"ragscope/retrieval/provider/chattask"
)

// CaseJudged are one case's label-free figures from the judge's grades
// of its kept hits.
type CaseJudged struct {
	// K is the number of kept hits; Judged those with a grade.
	K      int `json:"k"`
	Judged int `json:"judged"`
	// Precision is judged precision@k (share of judged hits graded ≥ 2);
	// NDCG judged nDCG@k (grades as gains). nil when nothing was judged.
	Precision *float64 `json:"judged_precision"`
	NDCG      *float64 `json:"judged_ndcg"`
	// NothingAnswers: hits were judged and none was graded ≥ 2.
	NothingAnswers bool `json:"nothing_answers"`
	// NotJudged is the number of kept hits the judge could not grade and
	// NotJudgedWhy the cause (judge.Unjudged): such a case is not a pass
	// in the reports.
	NotJudged    int    `json:"not_judged"`
	NotJudgedWhy string `json:"not_judged_why,omitempty"`
}

// JudgeReport is what the judge found over the run.
type JudgeReport struct {
	// Model is the judge model ("provider/model"); PromptVersion the
	// relevance prompt's version.
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	// NotRun says why no hit was judged (the calls were declined); ""
	// when the judge ran.
	NotRun string `json:"not_run,omitempty"`
	// Planned is the number of calls the cache could not answer.
	Planned int         `json:"planned_calls"`
	Stats   judge.Stats `json:"stats"`
	// Error is the failure that stopped the judge ("" when none).
	Error string `json:"error,omitempty"`
	// Hits is the number of kept hits to judge; NotJudged those left
	// without a grade, and NotJudgedWhy the cause (judge.Unjudged). Any
	// fails the run: a gate that could not judge does not pass.
	Hits         int    `json:"hits"`
	NotJudged    int    `json:"not_judged_hits"`
	NotJudgedWhy string `json:"not_judged_why,omitempty"`
	// Cases counts the cases with kept hits; Measured those with a judged
	// hit; NDCGCases those of them where a hit answers (graded ≥ 2: judged
	// nDCG has no ideal otherwise). Precision is the mean over Measured
	// cases, NDCG over NDCGCases (nil when none).
	Cases     int      `json:"cases"`
	Measured  int      `json:"measured"`
	NDCGCases int      `json:"ndcg_cases"`
	Precision *float64 `json:"judged_precision"`
	NDCG      *float64 `json:"judged_ndcg"`
	// NothingAnswers are the ids of the measured cases with no hit graded
	// ≥ 2.
	NothingAnswers []string `json:"nothing_answers"`
	// Categories are the same figures per category, in name order.
	Categories []JudgeCategory `json:"categories"`
	// Agreement compares the judge with the labels; nil when no judged
	// case has labels (expected doc paths, URLs, modules or chapters).
	Agreement *AgreementReport `json:"agreement,omitempty"`
	// Faithfulness sums the answers' claims (eval --answer --judge).
	Faithfulness *FaithReport `json:"faithfulness,omitempty"`
}

// FaithReport is the faithfulness of the run's answers.
type FaithReport struct {
	// Answers is the number of answers checked; NotJudged those the judge
	// could not check.
	Answers   int `json:"answers"`
	NotJudged int `json:"not_judged"`
	// Claims is the number of claims with a verdict; Supported of them
	// supported; Share = Supported / Claims (nil with no claim).
	Claims    int      `json:"claims"`
	Supported int      `json:"supported"`
	Share     *float64 `json:"supported_share"`
	// Unsupported lists the claims judged not supported, in case order.
	Unsupported []UnsupportedClaim `json:"unsupported"`
}

// UnsupportedClaim is a claim of a case's answer its sources do not
// support.
type UnsupportedClaim struct {
	Case   string `json:"case"`
	Claim  string `json:"claim"`
	Reason string `json:"reason"`
}

// JudgeCategory are a category's judged figures.
type JudgeCategory struct {
	Category       string   `json:"category"`
	Cases          int      `json:"cases"`
	Measured       int      `json:"measured"`
	Precision      *float64 `json:"judged_precision"`
	NDCG           *float64 `json:"judged_ndcg"`
	NothingAnswers int      `json:"nothing_answers"`
}

// AgreementReport is the judge's agreement with the labels over the
// judged hits of labelled cases: judged relevant (grade ≥ 2) against
// labelled relevant.
type AgreementReport struct {
	// Cases is the number of labelled cases with a judged hit.
	Cases     int             `json:"cases"`
	Confusion judge.Confusion `json:"confusion"`
	// Kappa is Cohen's kappa; null when undefined, and Undefined says why.
	Kappa     *float64 `json:"kappa"`
	Undefined string   `json:"undefined,omitempty"`
	// Observed is the share of hits where judge and labels agree.
	Observed float64 `json:"observed"`
}

// judgeAll grades the kept hits of every case that ran, after asking
// ConfirmJudge. The error is the one that stopped the judge.
func (r *runner) judgeAll(ctx context.Context, set Set) (*JudgeReport, error) {
	j := r.opts.Judge
	rep := &JudgeReport{Model: j.Model(), PromptVersion: j.PromptVersion(), NothingAnswers: []string{}, Categories: []JudgeCategory{}}
	// With answers, each answer is checked against its sources too.
	todo := r.toJudge(set, r.opts.Generator != nil)
	rep.Planned = j.Pending(todo.items) + j.PendingFaithfulness(todo.faith)
	if rep.Planned > 0 && r.opts.ConfirmJudge != nil && !r.opts.ConfirmJudge(rep.Planned) {
		rep.NotRun = "declined: the judge calls were not confirmed"
		return rep, nil
	}
	total := len(todo.items) + len(todo.faith)
	progress := func(offset int) func(done, _ int) {
		if r.opts.JudgeProgress == nil {
			return nil
		}
		return func(done, _ int) { r.opts.JudgeProgress(offset+done, total) }
	}
	js, st, err := j.Relevance(ctx, todo.items, progress(0))
	rep.Stats = st
	if err == nil && len(todo.faith) > 0 {
		var fs []judge.Faithfulness
		var fst judge.Stats
		fs, fst, err = j.Faithfulness(ctx, todo.faith, progress(len(todo.items)))
		rep.Stats.Add(fst)
		rep.Faithfulness = r.faithReport(fs, todo.faithAt)
	}
	if err != nil {
		rep.Error = err.Error()
	}
	for n, w := range todo.where {
		jd := js[n]
		r.results[w.c].Hits[w.h].Judge = &jd
	}
	rep.Hits = len(js)
	rep.NotJudged, rep.NotJudgedWhy = judge.Unjudged(js)
	var down *chattask.DownError
	if errors.As(err, &down) && rep.NotJudged > 0 {
		// The judge's model is down: the hits it left fail the run
		// (Shortfall, exit 3) with this cause, once the reports are
		// written, as any hit not judged does.
		rep.NotJudgedWhy = down.Error()
		err = nil
	}
	r.judgedFigures()
	return rep, err
}

// hitAt places a judged hit: case c's hit h.
type hitAt struct{ c, h int }

// toJudge is what the judge is asked about a run: the kept hits of every
// case that ran (items, and where each belongs), and, with answers, the
// answers to check against their sources (those not refused, failed or
// empty) and their cases.
type toJudge struct {
	items   []judge.Item
	where   []hitAt
	faith   []judge.FaithItem
	faithAt []int
}

// toJudge walks the cases that ran once for what the judge grades;
// answers says whether their answers are checked too.
func (r *runner) toJudge(set Set, answers bool) toJudge {
	var w toJudge
	for i := range set.Cases {
		res, cr := r.res[i], r.results[i]
		if res == nil {
			continue
		}
		if cr.Status != StatusError {
			kept := res.Hits
			if k := cr.Query.TopK; k > 0 && len(kept) > k {
				kept = kept[:k]
			}
			for h, hit := range kept {
				if h >= len(cr.Hits) || cr.Hits[h].ChunkID != hit.Chunk.ID {
					break
				}
				w.items = append(w.items, judge.Item{Question: res.Question, Hit: hit})
				w.where = append(w.where, hitAt{i, h})
			}
		}
		if a := cr.Answer; answers && a != nil && !a.Refused && a.Error == "" && strings.TrimSpace(a.Text) != "" {
			w.faith = append(w.faith, judge.FaithItem{Question: res.Question, Answer: a.Text, Sources: judge.SourcesOf(retrieval.NewPrompt(*res))})
			w.faithAt = append(w.faithAt, i)
		}
	}
	return w
}

// faithReport puts each answer's faithfulness (fs[n] is case faithAt[n]'s)
// in its case and sums them up.
func (r *runner) faithReport(fs []judge.Faithfulness, faithAt []int) *FaithReport {
	fr := &FaithReport{Unsupported: []UnsupportedClaim{}}
	for n, i := range faithAt {
		f := fs[n]
		r.results[i].Answer.Faithfulness = &f
		if f.Status != judge.Judged {
			fr.NotJudged++
			continue
		}
		fr.Answers++
		fr.Claims += f.Judged
		fr.Supported += f.Supported
		for _, c := range f.Unsupported() {
			fr.Unsupported = append(fr.Unsupported, UnsupportedClaim{Case: r.results[i].ID, Claim: c.Text, Reason: c.Reason})
		}
	}
	if fr.Claims > 0 {
		sh := float64(fr.Supported) / float64(fr.Claims)
		fr.Share = &sh
	}
	return fr
}

// judgedFigures gives every case with judged hits its figures (nothing
// judged: nil).
func (r *runner) judgedFigures() {
	for i := range r.results {
		cr := &r.results[i]
		var cjs []judge.Judgement
		for _, h := range cr.Hits {
			if h.Judge != nil {
				cjs = append(cjs, *h.Judge)
			}
		}
		if len(cjs) == 0 {
			continue
		}
		m := judge.Case(cjs, 0)
		cr.Judged = &CaseJudged{K: m.K, Judged: m.Judged, Precision: m.Precision, NDCG: m.NDCG, NothingAnswers: m.NothingAnswers}
		cr.Judged.NotJudged, cr.Judged.NotJudgedWhy = judge.Unjudged(cjs)
	}
}

// Shortfall is the run's reason to fail when the judge left hits
// without a grade ("" when it graded them all, or did not run): how many,
// in which cases, and why.
func (rep *JudgeReport) Shortfall(cases []CaseResult) string {
	if rep == nil || rep.NotRun != "" || rep.NotJudged == 0 {
		return ""
	}
	ids := idList(cases, JudgeFailed)
	if rep.NotJudged == rep.Hits {
		return fmt.Sprintf("the judge could judge none of the %d hits (%s): %s", rep.Hits, ids, rep.NotJudgedWhy)
	}
	return fmt.Sprintf("the judge could not judge %d of %d hits (%s): %s", rep.NotJudged, rep.Hits, ids, rep.NotJudgedWhy)
}

// JudgeFailed reports whether the judge left some of c's hits without a
// grade: such a case is not a pass in the reports.
func JudgeFailed(c CaseResult) bool { return c.Judged != nil && c.Judged.NotJudged > 0 }

// judgeProblem is the one-line account of c's hits the judge could not
// grade ("" when it graded them all).
func judgeProblem(c CaseResult) string {
	if !JudgeFailed(c) {
		return ""
	}
	return fmt.Sprintf("judge: %d of %d hits not judged: %s", c.Judged.NotJudged, c.Judged.K, c.Judged.NotJudgedWhy)
}

// summarise fills the run's figures from the judged cases.
func (rep *JudgeReport) summarise(cases []CaseResult) {
	if rep.NotRun != "" {
		return
	}
	var all []judge.CaseMetrics
	byCat := map[string][]judge.CaseMetrics{}
	var conf judge.Confusion
	labelled := 0
	for _, c := range cases {
		if c.Judged == nil {
			continue
		}
		m := judge.CaseMetrics{K: c.Judged.K, Judged: c.Judged.Judged, Precision: c.Judged.Precision, NDCG: c.Judged.NDCG, NothingAnswers: c.Judged.NothingAnswers}
		all = append(all, m)
		byCat[c.Category] = append(byCat[c.Category], m)
		if m.NothingAnswers {
			rep.NothingAnswers = append(rep.NothingAnswers, c.ID)
		}
		if c.Kind != KindRanking {
			continue
		}
		counted := false
		for _, h := range c.Hits {
			if h.Judge == nil || !h.Judge.IsJudged() {
				continue
			}
			conf.Add(*h.Judge.Grade >= judge.Relevant, h.Relevant)
			counted = true
		}
		if counted {
			labelled++
		}
	}
	s := judge.Summarise(all)
	rep.Cases, rep.Measured, rep.NDCGCases, rep.Precision, rep.NDCG = s.Cases, s.Measured, s.NDCGCases, s.Precision, s.NDCG
	cats := make([]string, 0, len(byCat))
	for k := range byCat {
		cats = append(cats, k)
	}
	sort.Strings(cats)
	for _, k := range cats {
		cs := judge.Summarise(byCat[k])
		rep.Categories = append(rep.Categories, JudgeCategory{Category: k, Cases: cs.Cases, Measured: cs.Measured, Precision: cs.Precision, NDCG: cs.NDCG, NothingAnswers: cs.NothingAnswers})
	}
	hasLabels := false
	for _, c := range cases {
		if c.Kind == KindRanking {
			hasLabels = true
		}
	}
	if hasLabels {
		a := judge.Agree(conf)
		rep.Agreement = &AgreementReport{Cases: labelled, Confusion: conf, Kappa: a.Kappa, Undefined: a.Why, Observed: a.Observed}
	}
}
