package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"ragscope/retrieval"
)

// wordReranker scores 0.9 documents with "boost", 0 those with "sink",
// 0.5 the rest; err fails every call.
type wordReranker struct{ err error }

func (w wordReranker) Rerank(_ context.Context, _ string, docs []string, topN int) ([]retrieval.Relevance, error) {
	if w.err != nil {
		return nil, w.err
	}
	var out []retrieval.Relevance
	for i, d := range docs {
		s := 0.5
		switch {
		case strings.Contains(d, "boost"):
			s = 0.9
		case strings.Contains(d, "sink"):
			s = 0
		}
		out = append(out, retrieval.Relevance{Index: i, Score: s})
	}
	return out, nil
}
func (wordReranker) Name() string { return "words" }

func rerankWorld() (*world, Set) {
	w := newWorld()
	const good, bad = "module-1-ros2/01-what-is-ros2.md", "module-2-sim/01-gazebo.md"
	var fix []retrieval.ScoredChunk
	for i := 0; i < 6; i++ {
		fix = append(fix, chunk(fmt.Sprintf("f%d", i), bad, "S", fmt.Sprintf("filler text number %d", i), 0.9-float64(i)*0.05))
	}
	fix = append(fix, chunk("fr", good, "S", "the answer, boost", 0.5))
	w.add("fix me", fix...)
	w.add("break me",
		chunk("br", good, "S", "the answer, sink", 0.9),
		chunk("b1", bad, "S", "other text one", 0.8),
		chunk("b2", bad, "S", "other text two", 0.7),
	)
	w.add("keep me",
		chunk("kr", good, "S", "the answer, boost", 0.9),
		chunk("k1", bad, "S", "more text", 0.8),
	)
	exp := Expect{Modules: []string{"module-1-ros2"}}
	set := Set{TopK: 2, Cases: []Case{
		{ID: "fix", Question: "fix me", Expect: exp},
		{ID: "break", Question: "break me", Expect: exp},
		{ID: "keep", Question: "keep me", Expect: exp},
		{ID: "sel", Question: "summarise", Mode: retrieval.ModeSelectedText, SelectedText: "some text"},
	}}
	return w, set
}

func TestEvalRerankComparesBothOrdersOfOneRetrieval(t *testing.T) {
	w, set := rerankWorld()
	plain := run(t, w, set, Options{LatencySample: -1})
	batchesPlain := len(w.embedCalls())

	w2, _ := rerankWorld()
	p := w2.pipeline()
	p.Reranker = wordReranker{}
	rep, err := Run(context.Background(), p, set, Options{LatencySample: -1, Rerank: retrieval.RerankOptions{On: true, Candidates: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(w2.embedCalls()); got != batchesPlain {
		t.Fatalf("%d embed calls with rerank, %d without: one retrieval must feed both", got, batchesPlain)
	}
	rr := rep.Rerank
	if rr == nil || rr.Model != "words" || rr.Candidates != 4 || len(rr.Errors) != 0 || rr.Reranked != 3 || rr.Outage() {
		t.Fatalf("rerank report %+v", rr)
	}
	// The vector order is exactly the run without reranking.
	for i, c := range plain.Cases {
		v := rr.VectorCases[i]
		if v.ID != c.ID || v.FirstRelevantRank != c.FirstRelevantRank || v.HitAtK != c.HitAtK || v.Status != c.Status {
			t.Errorf("case %s: vector order %d/%v/%s, plain run %d/%v/%s", c.ID, v.FirstRelevantRank, v.HitAtK, v.Status, c.FirstRelevantRank, c.HitAtK, c.Status)
		}
	}
	if fmt.Sprint(rr.Diff.Fixed) != "[fix]" || fmt.Sprint(rr.Diff.Regressions) != "[break]" {
		t.Fatalf("fixed %v broke %v, want [fix] [break]", rr.Diff.Fixed, rr.Diff.Regressions)
	}
	if rep.Cases[0].FirstRelevantRank != 1 || rr.VectorCases[0].FirstRelevantRank != 0 {
		t.Errorf("fix: reranked rank %d, vector rank %d", rep.Cases[0].FirstRelevantRank, rr.VectorCases[0].FirstRelevantRank)
	}
	near(t, "vector hit@k", rr.Vector.HitAtK, 2.0/3, 1e-9)
	near(t, "reranked hit@k", rep.Summary.HitAtK, 2.0/3, 1e-9)
	var hit1 *MetricDelta
	for i := range rr.Diff.Overall {
		if rr.Diff.Overall[i].Metric == "hit@1" {
			hit1 = &rr.Diff.Overall[i]
		}
	}
	if hit1 == nil || hit1.Delta != 0 || hit1.Old != 2.0/3 {
		t.Errorf("hit@1 delta %+v", hit1)
	}
	if fmt.Sprint(rep.Calibration.Bins) != fmt.Sprint(plain.Calibration.Bins) || *rep.Calibration.Suggested != *plain.Calibration.Suggested {
		t.Errorf("calibration %+v, want the vector order's %+v", rep.Calibration, plain.Calibration)
	}
	// The selected-text case is not reranked and equal in both.
	if rr.VectorCases[3].Status != rep.Cases[3].Status || rep.Cases[3].Mode != retrieval.ModeSelectedText {
		t.Errorf("selected text case: %+v", rr.VectorCases[3])
	}
}

func TestEvalRerankFailureKeepsVectorOrder(t *testing.T) {
	w, set := rerankWorld()
	p := w.pipeline()
	p.Reranker = wordReranker{err: fmt.Errorf("%w: Cohere rejected the API key (401)", retrieval.ErrAuth)}
	rep, err := Run(context.Background(), p, set, Options{LatencySample: -1, Rerank: retrieval.RerankOptions{On: true}})
	if err != nil && !errors.Is(err, retrieval.ErrAuth) {
		t.Fatal(err)
	}
	rr := rep.Rerank
	if len(rr.Errors) != 3 || !strings.Contains(rr.Errors[0], "401") || rr.Reranked != 3 || !rr.Outage() || !errors.Is(rr.Err, retrieval.ErrAuth) {
		t.Fatalf("errors %v (reranked %d, err %v), want the 3 reranked cases: an outage", rr.Errors, rr.Reranked, rr.Err)
	}
	if len(rr.Diff.Fixed)+len(rr.Diff.Regressions) != 0 {
		t.Fatalf("a failed rerank changed cases: %+v", rr.Diff)
	}
}

// modalWorld is a store that ranks "several ways": it records the modes
// it was asked for and searches the same way in each.
type modalWorld struct {
	retrieval.Store
	mu    sync.Mutex
	modes []string
}

func (m *modalWorld) WithSearchMode(mode string) (retrieval.Store, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.modes = append(m.modes, mode)
	return m.Store, nil
}

// Options.SearchMode is every search's mode (the explorer's local search
// setting); selected-text cases search nothing and name none.
func TestEvalSearchMode(t *testing.T) {
	w, set := rerankWorld()
	p := w.pipeline()
	ms := &modalWorld{Store: p.Store}
	p.Store = ms
	rep, err := Run(context.Background(), p, set, Options{LatencySample: 1, SearchMode: "bm25"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Cases {
		want := "bm25"
		if c.Mode == retrieval.ModeSelectedText {
			want = ""
		}
		if c.Query.SearchMode != want {
			t.Errorf("case %s: search mode %q, want %q", c.ID, c.Query.SearchMode, want)
		}
	}
	if len(ms.modes) == 0 || slices.ContainsFunc(ms.modes, func(m string) bool { return m != "bm25" }) {
		t.Errorf("the store was asked for modes %q", ms.modes)
	}
}
