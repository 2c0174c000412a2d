package ui

import (
	"context"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// armsRetriever answers as fakeRetriever does and places every hit in a
// dense and a bm25 arm, as a hybrid collection's fused search does; the
// second hit is missing from the bm25 arm.
type armsRetriever struct{ fakeRetriever }

func (a *armsRetriever) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	res, err := a.fakeRetriever.Retrieve(ctx, q)
	for i := range res.Hits {
		res.Hits[i].Arms = []retrieval.Arm{
			{Label: "dense", Vector: "dense", Rank: i + 3, Score: 0.61},
			{Label: "bm25", Vector: "bm25", Rank: i + 1, Score: 12.4},
		}
		if i == 1 {
			res.Hits[i].Arms[1] = retrieval.Arm{Label: "bm25", Vector: "bm25"}
		}
	}
	return res, err
}

// A hybrid result's rows show each hit's rank in each arm beside its
// fused rank and score, at 80 and 120 columns, and the detail pane each
// arm's score; a dense-only result's rows do not.
func TestResultsShowArms(t *testing.T) {
	for _, w := range []int{80, 120} {
		opts, _ := testOptions(&fakeRetriever{})
		opts.Retriever = &armsRetriever{}
		m := ask(t, sized(t, opts, w, 40), "what is a node")
		out := screen(m)
		for _, want := range []string{" 1 0.900 ", "dense #3 · bm25 #1 · ", " 2 0.800 ", "dense #4 · bm25 – · "} {
			if !strings.Contains(out, want) {
				t.Errorf("%d columns: no %q in\n%s", w, want, out)
			}
		}
		if detail := "arms        dense #3 0.610 · bm25 #1 12.400 · fused #1 0.900"; w >= wideWidth && !strings.Contains(out, detail) {
			t.Errorf("%d columns: no %q in\n%s", w, detail, out)
		}
	}
	opts, _ := testOptions(&fakeRetriever{})
	if out := screen(ask(t, sized(t, opts, 120, 40), "what is a node")); strings.Contains(out, "fused #") {
		t.Errorf("a dense-only result shows arms:\n%s", out)
	}
}

// The header names a hybrid collection's search, in place of the model
// (its dense arm names the model), once the stats read the collection.
func TestHeaderShowsHybridSearch(t *testing.T) {
	const search = "hybrid: dense (embed-english-v3.0) + bm25 (qdrant/bm25), RRF k=2"
	opts, _ := testOptions(&fakeRetriever{})
	opts.Backend = BackendInfo{Kind: "qdrant", Collection: "docs", Model: "cohere embed-english-v3.0", Points: -1}
	stats := opts.Stats
	opts.Stats = func(ctx context.Context) (retrieval.Stats, error) {
		st, err := stats(ctx)
		st.Search = search
		return st, err
	}
	m := sized(t, opts, 120, 30)
	first := strings.TrimSpace(strings.SplitN(screen(m), "\n", 2)[0])
	if first != "ragscope qdrant · collection docs · "+search+" · 42 points" {
		t.Errorf("header at 120: %q", first)
	}
	// At 80 columns the search is shortened, not dropped or cut: it
	// still says hybrid, and how the arms are fused.
	opts.Backend.Collection = "physical-ai-textbook"
	m = sized(t, opts, 80, 30)
	if first := strings.SplitN(screen(m), "\n", 2)[0]; strings.TrimSpace(first) != "ragscope qdrant · collection physical-ai-textbook · hybrid, RRF k=2 · 42 points" {
		t.Errorf("header at 80: %q", first)
	}
	// A dense collection's header keeps its model.
	opts, _ = testOptions(&fakeRetriever{})
	if first := strings.SplitN(screen(sized(t, opts, 120, 30)), "\n", 2)[0]; !strings.Contains(first, "fake-embed-v1") || strings.Contains(first, "hybrid") {
		t.Errorf("dense header: %q", first)
	}
}
