package eval

import (
	"context"
	"fmt"
	"strings"

	"ragscope/internal/parallel"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
)

// DefaultAnswerConcurrency bounds the answers generated at once.
const DefaultAnswerConcurrency = 4

// AnswerResult is the answer generated for a case (Options.Generator) and
// what its checks found.
type AnswerResult struct {
	// Text is the answer as the model wrote it (untrusted).
	Text string `json:"text"`
	// Refused is true when nothing was retrieved: no model was asked.
	Refused bool `json:"refused"`
	// Declined is true when the answer declines (Refused, or the model
	// said the context does not cover the question).
	Declined bool `json:"declined"`
	// CitedRanks are the ranks the answer cites; UnknownSources the
	// source numbers it cites that the context does not have.
	CitedRanks     []int `json:"cited_ranks"`
	UnknownSources []int `json:"unknown_sources"`
	// CitesRelevant tells, for a ranking case, whether the answer cites at
	// least one relevant hit (nil for other cases and refusals).
	CitesRelevant *bool `json:"cites_relevant"`
	// MissingKeywords are the expected answer keywords the answer lacks.
	MissingKeywords []string        `json:"missing_answer_keywords,omitempty"`
	Model           string          `json:"model,omitempty"`
	Usage           retrieval.Usage `json:"usage"`
	TotalMS         float64         `json:"total_ms"`
	Error           string          `json:"error,omitempty"`
	// Faithfulness is the judge's check of the answer's claims against
	// its sources (eval --answer --judge).
	Faithfulness *judge.Faithfulness `json:"faithfulness,omitempty"`
}

// CheckAnswer judges a case's generated answer (or its error) and records
// it in cr: the answer-level expectations (refuse, answer keywords), and
// that every citation points at a retrieved source. A failed check makes
// the case fail; a generation error makes it an error.
func CheckAnswer(c Case, cr *CaseResult, a retrieval.Answer, err error) {
	ar := &AnswerResult{
		Text: a.Text, Refused: a.Refused, Declined: a.Refused || retrieval.LooksLikeRefusal(a.Text),
		CitedRanks: nonNil(a.Cited), UnknownSources: nonNil(a.Unknown), Model: a.Model, Usage: a.Usage, TotalMS: ms(a.Timings.Total),
	}
	cr.Answer = ar
	if err != nil {
		ar.Error = err.Error()
		cr.AnswerCheck = "error"
		cr.Status = StatusError
		cr.Reasons = append(cr.Reasons, "answer: "+err.Error())
		if cr.Error == "" {
			cr.Error = err.Error()
		}
		return
	}
	var fails []string
	if c.Expect.Refuse && !ar.Declined {
		fails = append(fails, "expected a refusal, but the model answered")
	}
	if len(c.Expect.AnswerKeywords) > 0 {
		if _, missing := KeywordCoverage(c.Expect.AnswerKeywords, a.Text); len(missing) > 0 {
			ar.MissingKeywords = missing
			fails = append(fails, "the answer lacks "+strings.Join(missing, ", "))
		}
	}
	for _, n := range a.Unknown {
		fails = append(fails, fmt.Sprintf("the answer cites [Source %d], which was not retrieved", n))
	}
	if cr.Kind == KindRanking && !a.Refused {
		relevant := map[int]bool{}
		for _, h := range cr.Hits {
			if h.Grade > 0 && !h.BelowThreshold {
				relevant[h.Rank] = true
			}
		}
		cites := false
		for _, r := range a.Cited {
			cites = cites || relevant[r]
		}
		ar.CitesRelevant = &cites
	}
	if len(fails) == 0 {
		cr.AnswerCheck = "pass"
		return
	}
	cr.AnswerCheck = "fail: " + strings.Join(fails, "; ")
	if cr.Status != StatusError {
		cr.Status = StatusFail
	}
	for _, f := range fails {
		cr.Reasons = append(cr.Reasons, "answer: "+f)
	}
}

func nonNil(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// answerAll generates an answer for every case that ran, at most
// opts.AnswerConcurrency at once, and checks it. When the chat model
// failed every case it was asked about with a backend error (unreachable,
// refused key), it returns an *OutageError: nothing about answers was
// judged.
func (r *runner) answerAll(ctx context.Context, set Set) error {
	conc := r.opts.AnswerConcurrency
	if conc <= 0 {
		conc = DefaultAnswerConcurrency
	}
	l := parallel.New(conc)
	var asked, failed int
	var first error
	firstAt := -1
	backend := true
	for i, res := range r.res {
		if res == nil || r.results[i].Status == StatusError {
			continue
		}
		l.GoCtx(ctx, func() {
			a, err := retrieval.Generate(ctx, r.opts.Generator, *res, nil)
			r.mu.Lock()
			defer r.mu.Unlock()
			CheckAnswer(set.Cases[i], &r.results[i], a, err)
			if a.Refused {
				return // nothing was sent
			}
			asked++
			if err != nil {
				failed++
				backend = backend && retrieval.IsBackendError(err)
				if firstAt < 0 || i < firstAt {
					first, firstAt = err, i
				}
			}
		}, nil)
	}
	l.Wait()
	if asked > 0 && failed == asked && backend {
		return &OutageError{Cases: asked, Err: first}
	}
	return nil
}
