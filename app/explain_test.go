package app

import (
	"context"
	"math"
	"testing"

	"ragscope/config"
	"ragscope/retrieval"
)

// The explorer explains a hybrid hit by arm, as query --explain does: it
// hands over the row's id only, so the explanation reads the hit's fused
// score and arms from the query run again on the question's vector.
func TestExplorerExplainsHybridHitByArm(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.LocalSearch, cfg.Fusion = "hybrid", "rrf"
	be, err := (&Assembler{}).Open(ctx, FromConfig(cfg), Search)
	if err != nil {
		t.Fatal(err)
	}
	q := retrieval.Query{Question: "how does the robot turn spoken words into text?", TopK: 3}
	res, err := be.Pipeline.Retrieve(ctx, q)
	if err != nil || len(res.Hits) < 2 {
		t.Fatalf("%v, %d hits", err, len(res.Hits))
	}
	hit := res.Hits[1]
	es := explorerExplain(be, &checkedRetriever{be: be}, "")
	e, err := es.Explain(ctx, q, hit.Chunk.ID, nil, res.Hits[0].Chunk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Fusion == nil || e.Scorer != "hybrid" || e.Fusion.Method != "rrf" || e.Fusion.K != 2 || len(e.Fusion.Arms) != 2 {
		t.Fatalf("not taken apart by arm: scorer %q, fusion %+v", e.Scorer, e.Fusion)
	}
	sum := 0.0
	for i, a := range e.Fusion.Arms {
		if a.Contribution == nil || (a.Rank == nil) != (hit.Arms[i].Rank == 0) || (a.Rank != nil && *a.Rank != hit.Arms[i].Rank) {
			t.Fatalf("arm %d: %+v, the hit's %+v", i, a, hit.Arms[i])
		}
		sum += *a.Contribution
	}
	if e.Score != hit.Score || math.Abs(sum-hit.Score) > 1e-9 {
		t.Errorf("explained %v (arms add up to %v), the hit scores %v", e.Score, sum, hit.Score)
	}
	if len(e.Attribution) == 0 {
		t.Errorf("no attribution of the dense arm: %q", e.AttributionNote)
	}
}
