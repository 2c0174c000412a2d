package eval

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
)

// gradeGen is a judge model that grades a passage by the "grade=N" it
// contains, with a JSON answer of the schema.
type gradeGen struct{ calls atomic.Int32 }

func (g *gradeGen) Stream(_ context.Context, p retrieval.Prompt, emit func(retrieval.Delta)) error {
	g.calls.Add(1)
	if p.Schema == nil {
		panic("judge call without a schema")
	}
	_, rest, _ := strings.Cut(p.Question, "grade=")
	emit(retrieval.Delta{Text: `{"grade": ` + rest[:1] + `, "reason": "r"}`, Usage: &retrieval.Usage{InputTokens: 7, OutputTokens: 3}})
	return nil
}
func (g *gradeGen) Model() string    { return "grader" }
func (g *gradeGen) Provider() string { return "fake" }

func judgedWorld() (*world, Set) {
	w := newWorld()
	w.add("u1", chunk("a", nodeDoc, "A", "grade=3 nodes talk", 0.9), chunk("b", simDoc, "B", "grade=0 gazebo", 0.8))
	w.add("u2", chunk("c", nodeDoc, "C", "grade=1 services", 0.9), chunk("d", simDoc, "D", "grade=1 worlds", 0.8))
	w.add("r1", chunk("e", nodeDoc, "E", "grade=2 topics", 0.9), chunk("f", qosDoc, "F", "grade=3 qos", 0.8), chunk("g", simDoc, "G", "grade=0 physics", 0.7))
	set := Set{Cases: []Case{
		{ID: "u1", Question: "u1", Category: "a"},
		{ID: "u2", Question: "u2", Category: "a"},
		{ID: "r1", Question: "r1", Category: "b", Expect: Expect{DocPaths: []string{qosDoc}}},
	}}
	return w, set
}

// Hand-computed:
//
//	u1 grades 3, 0: precision 1/2, nDCG 1.
//	u2 grades 1, 1: precision 0, no nDCG (nothing answers: no ideal).
//	r1 grades 2, 3, 0: precision 2/3; DCG 2 + 3/log2 3, ideal 3 + 2/log2 3: nDCG 0.913402.
//	Means: precision over 3 cases 0.388889, nDCG over u1 and r1 0.956701.
//	Agreement on r1: e judged relevant, not labelled; f both; g neither:
//	po 2/3, pe 2/3·1/3 + 1/3·2/3 = 4/9, κ = (2/3 − 4/9)/(5/9) = 0.4.
func TestRunJudgedMetricsAndAgreement(t *testing.T) {
	w, set := judgedWorld()
	gen := &gradeGen{}
	j, err := judge.New(gen, judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	asked := -1
	rep := run(t, w, set, Options{Judge: j, ConfirmJudge: func(n int) bool { asked = n; return true }})
	jr := rep.Judging
	if jr == nil || asked != 7 || gen.calls.Load() != 7 || jr.Stats.Calls != 7 || jr.Stats.Usage.InputTokens != 49 || jr.NotRun != "" {
		t.Fatalf("asked %d, calls %d, %+v", asked, gen.calls.Load(), jr)
	}
	if rep.Cases[0].Kind != KindUnlabelled || rep.Cases[0].Status != StatusPass {
		t.Fatalf("unlabelled case: %+v", rep.Cases[0])
	}
	near(t, "u1 precision", *rep.Cases[0].Judged.Precision, 0.5, 1e-9)
	near(t, "r1 nDCG", *rep.Cases[2].Judged.NDCG, 0.9134015924715543, 1e-9)
	if g := rep.Cases[2].Hits[1].Judge; g == nil || *g.Grade != 3 || g.Reason != "r" {
		t.Fatalf("hit judge %+v", g)
	}
	near(t, "mean precision", *jr.Precision, 0.38888888888888884, 1e-9)
	near(t, "mean nDCG", *jr.NDCG, (1+0.9134015924715543)/2, 1e-9)
	if rep.Cases[1].Judged.NDCG != nil {
		t.Errorf("u2 (nothing answers) nDCG %v, want none", *rep.Cases[1].Judged.NDCG)
	}
	if jr.Measured != 3 || jr.NDCGCases != 2 || len(jr.NothingAnswers) != 1 || jr.NothingAnswers[0] != "u2" {
		t.Fatalf("%+v", jr)
	}
	if len(jr.Categories) != 2 || jr.Categories[0].Category != "a" || jr.Categories[0].NothingAnswers != 1 || jr.Categories[1].Measured != 1 {
		t.Fatalf("categories %+v", jr.Categories)
	}
	near(t, "category a precision", *jr.Categories[0].Precision, 0.25, 1e-9)
	a := jr.Agreement
	if a == nil || a.Cases != 1 || a.Confusion != (judge.Confusion{BothRelevant: 1, JudgeOnly: 1, Neither: 1}) || a.Kappa == nil {
		t.Fatalf("agreement %+v", a)
	}
	near(t, "kappa", *a.Kappa, 0.4, 1e-9)
}

func TestRunJudgeDeclinedAndNoLabels(t *testing.T) {
	w, set := judgedWorld()
	gen := &gradeGen{}
	j, _ := judge.New(gen, judge.Options{})
	rep := run(t, w, set, Options{Judge: j, ConfirmJudge: func(int) bool { return false }})
	if gen.calls.Load() != 0 || rep.Judging == nil || !strings.Contains(rep.Judging.NotRun, "declined") || rep.Cases[0].Judged != nil {
		t.Fatalf("declined: %d calls, %+v", gen.calls.Load(), rep.Judging)
	}
	// Unlabelled cases only: no agreement.
	rep = run(t, w, set.withCases(set.Cases[:2]), Options{Judge: j})
	if rep.Judging.Agreement != nil || rep.Judging.Measured != 2 {
		t.Fatalf("%+v", rep.Judging)
	}
	// A labelled case whose hits are all judged relevant and labelled
	// relevant: one class, kappa undefined with why.
	w2 := newWorld()
	w2.add("r", chunk("f", qosDoc, "F", "grade=3 qos", 0.8), chunk("h", qosDoc, "H", "grade=2 more qos", 0.7))
	rep = run(t, w2, Set{Cases: []Case{{ID: "r", Question: "r", Expect: Expect{DocPaths: []string{qosDoc}}}}}, Options{Judge: j})
	if a := rep.Judging.Agreement; a == nil || a.Kappa != nil || !strings.Contains(a.Undefined, "one class only") {
		t.Fatalf("agreement %+v", rep.Judging.Agreement)
	}
	if math.IsNaN(rep.Judging.Agreement.Observed) {
		t.Fatal("NaN")
	}
}

// answerJudgeGen answers questions (no schema) with one cited sentence,
// grades passages 2, and checks claims: the first supported, the second
// not.
type answerJudgeGen struct{ faith atomic.Int32 }

func (g *answerJudgeGen) Stream(_ context.Context, p retrieval.Prompt, emit func(retrieval.Delta)) error {
	switch {
	case p.Schema == nil:
		emit(retrieval.Delta{Text: "Nodes talk over topics [Source 1]. They run on GPUs.", FinishReason: "stop"})
	case p.Schema.Name == "answer_claims":
		g.faith.Add(1)
		if !strings.Contains(p.Question, "[Source 1]") {
			panic("no sources in the faithfulness prompt")
		}
		emit(retrieval.Delta{Text: `{"claims": [{"claim": "Nodes talk over topics.", "supported": true, "sources": [1], "reason": "Source 1."},
			{"claim": "They run on GPUs.", "supported": false, "sources": [], "reason": "No source says so."}]}`})
	default:
		emit(retrieval.Delta{Text: `{"grade": 2, "reason": "partly"}`})
	}
	return nil
}
func (g *answerJudgeGen) Model() string    { return "both" }
func (g *answerJudgeGen) Provider() string { return "fake" }

func TestRunJudgeFaithfulness(t *testing.T) {
	w, set := judgedWorld()
	gen := &answerJudgeGen{}
	j, _ := judge.New(gen, judge.Options{})
	planned := 0
	rep := run(t, w, set, Options{Generator: gen, Judge: j, ConfirmJudge: func(n int) bool { planned = n; return true }})
	// 7 hits + 3 answers.
	if planned != 10 || gen.faith.Load() != 3 || rep.Judging.Stats.Calls != 10 {
		t.Fatalf("planned %d, faith calls %d, %+v", planned, gen.faith.Load(), rep.Judging.Stats)
	}
	fr := rep.Judging.Faithfulness
	if fr == nil || fr.Answers != 3 || fr.Claims != 6 || fr.Supported != 3 || *fr.Share != 0.5 || len(fr.Unsupported) != 3 ||
		fr.Unsupported[0].Case != "u1" || fr.Unsupported[0].Claim != "They run on GPUs." {
		t.Fatalf("%+v", fr)
	}
	if f := rep.Cases[2].Answer.Faithfulness; f == nil || f.Judged != 2 {
		t.Fatalf("case faithfulness %+v", f)
	}
}

// TestToJudgeWalk checks what one walk over the cases hands the judge: a
// case's kept hits (its TopK, while they match its reported hits), none
// of an errored case's or a case that did not run, and the answers that
// are neither refused, failed nor empty, only when answers are checked.
func TestToJudgeWalk(t *testing.T) {
	hit := func(id string) retrieval.Hit { return retrieval.Hit{Chunk: retrieval.Chunk{ID: id}} }
	res := func(q string, ids ...string) *retrieval.Result {
		r := &retrieval.Result{Question: q}
		for _, id := range ids {
			r.Hits = append(r.Hits, hit(id))
		}
		return r
	}
	reported := func(ids ...string) []HitResult {
		var hs []HitResult
		for _, id := range ids {
			hs = append(hs, HitResult{ChunkID: id})
		}
		return hs
	}
	r := &runner{
		res: []*retrieval.Result{
			res("kept", "a", "b", "c"),
			res("errored", "d"),
			nil,
			res("refused", "e", "f"),
			res("failed"),
			res("blank"),
		},
		results: []CaseResult{
			{Query: retrieval.Query{TopK: 2}, Hits: reported("a", "b", "c"), Answer: &AnswerResult{Text: "ok"}},
			{Status: StatusError, Hits: reported("d"), Answer: &AnswerResult{Text: "still checked"}},
			{Answer: &AnswerResult{Text: "never ran"}},
			{Hits: reported("e", "x"), Answer: &AnswerResult{Refused: true, Text: "r"}},
			{Answer: &AnswerResult{Error: "down", Text: "f"}},
			{Answer: &AnswerResult{Text: " \n"}},
		},
	}
	set := Set{Cases: make([]Case, len(r.res))}
	w := r.toJudge(set, true)
	var got []string
	for n, it := range w.items {
		got = append(got, it.Question+"/"+it.Hit.Chunk.ID)
		if at := w.where[n]; r.results[at.c].Hits[at.h].ChunkID != it.Hit.Chunk.ID {
			t.Errorf("item %d placed at %+v", n, at)
		}
	}
	if want := "kept/a kept/b refused/e"; strings.Join(got, " ") != want {
		t.Errorf("judged hits %q, want %q", strings.Join(got, " "), want)
	}
	var asked []string
	for n, f := range w.faith {
		asked = append(asked, f.Question)
		if r.res[w.faithAt[n]].Question != f.Question {
			t.Errorf("answer %d placed at case %d", n, w.faithAt[n])
		}
	}
	if want := "kept errored"; strings.Join(asked, " ") != want {
		t.Errorf("checked answers %q, want %q", strings.Join(asked, " "), want)
	}
	if w := r.toJudge(set, false); len(w.faith) != 0 || len(w.items) != 3 {
		t.Errorf("without answers: %d answers, %d hits", len(w.faith), len(w.items))
	}
}
