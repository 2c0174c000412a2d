package ui

import (
	"context"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// rerankCutRetriever returns one hit and one left out by the rerank
// threshold (relevance 0.120), with no score threshold.
type rerankCutRetriever struct{}

func (rerankCutRetriever) Retrieve(_ context.Context, q retrieval.Query) (retrieval.Result, error) {
	kept := retrieval.Hit{Rank: 1, Score: 0.9, Chunk: retrieval.Chunk{ID: "a", Title: "Kept page", Text: "kept"}}
	rel := 0.12
	cut := retrieval.Hit{Rank: 2, Score: 0.8, RerankScore: &rel, Chunk: retrieval.Chunk{ID: "b", Title: "Cut page", Text: "cut"}}
	res := retrieval.Result{Question: q.Question, Mode: retrieval.ModeNormal, Hits: []retrieval.Hit{kept},
		Dropped: []retrieval.DroppedHit{{Hit: cut, Reason: retrieval.ReasonBelowRerankThreshold}},
		Params:  retrieval.Params{TopK: q.TopK}}
	res.Grounded = retrieval.Ground(res.Hits)
	return res, nil
}

// A hit the rerank threshold cut is labelled so in the left-out rows, as
// the command line says it, not "below" the score threshold (issue 26).
func TestLeftOutByTheRerankThresholdIsLabelledSo(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Retriever = rerankCutRetriever{}
	m := sized(t, opts, 160, 40)
	m = ask(t, m, "anything")
	m = feed(t, m, keyRunes("x"))
	v := screen(m)
	if !strings.Contains(v, "relevance 0.120 below the rerank threshold") || strings.Contains(v, "below 0.00") {
		t.Fatalf("the rerank cut is mislabelled:\n%s", v)
	}
}
