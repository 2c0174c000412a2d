package judgerun

import (
	"context"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
	"ragscope/ui/common"
)

func grade(g int) judge.Judgement { return judge.Judgement{Grade: &g, Status: judge.Judged} }

func turn(n int, question string, ids ...string) *common.Turn {
	t := &common.Turn{N: n, Query: retrieval.Query{Question: question}, Result: retrieval.Result{Question: question}}
	for _, id := range ids {
		t.Result.Hits = append(t.Result.Hits, retrieval.Hit{Chunk: retrieval.Chunk{ID: id}})
	}
	return t
}

// A run grades its turn's hits, checks a finished answer, and its reply
// records the verdicts with a summary; a cancelled run's reply is stale.
func TestRunJudgesAndRecords(t *testing.T) {
	var asked []string
	js := Setup{
		Model: "fakeai/judge-1",
		Relevance: func(_ context.Context, q string, hits []retrieval.Hit) ([]judge.Judgement, judge.Stats, error) {
			asked = append(asked, q)
			out := make([]judge.Judgement, len(hits))
			for i := range hits {
				out[i] = grade(3 - i)
			}
			return out, judge.Stats{Calls: len(hits)}, nil
		},
		Faithfulness: func(context.Context, retrieval.Result, retrieval.Answer) (judge.Faithfulness, judge.Stats, error) {
			return judge.Faithfulness{}, judge.Stats{Calls: 1}, nil
		},
	}
	tu := turn(4, "how?", "a", "b")
	tu.Answer = &common.AnswerState{Phase: common.AnswerDone, Final: retrieval.Answer{Text: "It scales."}}
	var r Run
	cmd, what := r.Start(context.Background(), js, tu, "J")
	if what != "Judging 2 hits and the answer's claims with fakeai/judge-1… esc cancels." || !r.Busy() || !tu.Judge.Running || !tu.Answer.Faith.Running {
		t.Fatalf("start: %q busy %v", what, r.Busy())
	}
	msg := cmd().(Msg)
	if !r.End(msg) || r.Busy() {
		t.Fatal("the reply of the run in flight was not its end")
	}
	kind, text := Record(tu, msg, js.Model)
	if kind != common.StatusOK || !strings.HasPrefix(text, "Judged 2 hits with fakeai/judge-1: judged precision@2 1.00") ||
		!strings.Contains(text, "3 judge calls") {
		t.Errorf("summary: %v %q", kind, text)
	}
	if tu.Judge.Running || *tu.Judge.ByID["b"].Grade != 2 || tu.Answer.Faith.Running || tu.Answer.Faith.Verdict == nil {
		t.Errorf("verdicts not recorded: %+v", tu.Judge)
	}

	// A cancelled run: its reply is dropped, and a turn without verdicts
	// loses the judge's state.
	fresh := turn(5, "why?", "c")
	cmd, _ = r.Start(context.Background(), js, fresh, "J")
	if n, ok := r.Cancel(); !ok || n != 5 || r.Busy() {
		t.Fatalf("cancel: %d %v", n, ok)
	}
	if !Abandon(fresh) || fresh.Judge != nil {
		t.Errorf("abandoned turn keeps %+v", fresh.Judge)
	}
	if r.End(cmd().(Msg)) {
		t.Error("a cancelled run's reply was taken")
	}
	if _, ok := r.Cancel(); ok {
		t.Error("cancelled twice")
	}
}

// A judge that stops part way keeps the turn's earlier verdicts and
// says why; none graded is a failure.
func TestRecordStoppedAndUngraded(t *testing.T) {
	tu := turn(1, "q", "a", "b")
	tu.Judge = &common.JudgeState{Running: true}
	kind, text := Record(tu, Msg{N: 1, Grades: []judge.Judgement{grade(1)}, Err: context.Canceled}, "m")
	if kind != common.StatusErr || !strings.HasPrefix(text, "The judge stopped: ") || tu.Judge != nil {
		t.Errorf("stopped: %v %q %+v", kind, text, tu.Judge)
	}
	tu.Judge = &common.JudgeState{Running: true}
	kind, text = Record(tu, Msg{N: 1, Grades: []judge.Judgement{{Status: judge.Invalid}, {Status: judge.Invalid}}}, "m")
	if kind != common.StatusErr || !strings.Contains(text, "none could be graded") {
		t.Errorf("ungraded: %v %q", kind, text)
	}
}

// The question judged last is carried to its re-runs with hits, and
// forgotten when another question comes.
func TestCarries(t *testing.T) {
	var r Run
	if r.Carries(turn(1, "", "a")) {
		t.Error("nothing judged yet, yet carried")
	}
	r.Judged(turn(1, "how?", "a"))
	if !r.Carries(turn(2, "how?", "a")) || r.Carries(turn(3, "how?")) {
		t.Error("a re-run with hits is carried, one without is not")
	}
	if r.Carries(turn(4, "other", "a")) || r.Carries(turn(5, "how?", "a")) {
		t.Error("another question did not forget the one judged last")
	}
}

// Without a chat model the hint says how to get one.
func TestHint(t *testing.T) {
	if got := Hint(" "); got != "The judge needs a chat model. Configure a chat model as for ragscope ask." {
		t.Errorf("default hint %q", got)
	}
	if got := Hint("Set OPENAI_API_KEY."); !strings.HasSuffix(got, " Set OPENAI_API_KEY.") {
		t.Errorf("hint %q", got)
	}
}
