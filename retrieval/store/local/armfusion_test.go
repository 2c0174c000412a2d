package local

import (
	"context"
	"math"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// The hybrid mode fuses its arms as Qdrant does when asked: with RRF each
// hit's score is Σ 1/(rank − 1 + k) over the arms that returned it; DBSF
// sums each arm's normalised scores; every hit carries its arms.
func TestWithFusionRRFAndDBSF(t *testing.T) {
	ctx := context.Background()
	ix, corpus, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hy, err := ix.WithMode(ModeHybrid)
	if err != nil {
		t.Fatal(err)
	}
	q := "How do ROS 2 nodes communicate?"
	vecs, err := corpus.Embedder.Embed(ctx, []string{q})
	if err != nil {
		t.Fatal(err)
	}
	req := retrieval.SearchRequest{Vector: vecs[0], Text: q, Limit: 5}
	for _, k := range []int{0, 60} {
		v, err := hy.WithFusion("rrf", k, 0)
		if err != nil {
			t.Fatal(err)
		}
		kk := k
		if kk == 0 {
			kk = DefaultRRFK
		}
		if d := v.Describe(); !strings.HasSuffix(d, "RRF k="+map[int]string{2: "2", 60: "60"}[kk]) {
			t.Errorf("Describe = %q", d)
		}
		hits, err := v.Search(ctx, req)
		if err != nil || len(hits) != 5 {
			t.Fatal(err, len(hits))
		}
		for _, h := range hits {
			if len(h.Arms) != 2 || h.Arms[0].Label != "dense" || h.Arms[1].Label != "bm25" {
				t.Fatalf("arms %+v", h.Arms)
			}
			var want float64
			for _, a := range h.Arms {
				if a.Rank > 0 {
					want += 1 / float64(a.Rank-1+kk)
				}
			}
			if math.Abs(h.Score-want) > 1e-12 {
				t.Errorf("k %d: score %v, want %v from %+v", kk, h.Score, want, h.Arms)
			}
		}
	}
	v, err := hy.WithFusion("dbsf", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := v.Search(ctx, req)
	if err != nil || len(hits) == 0 || hits[0].Score <= 1 || !strings.HasSuffix(v.Describe(), "DBSF") {
		t.Fatalf("dbsf: %v, %+v, %q", err, hits, v.Describe())
	}
	if _, err := hy.WithFusion("dense", 0, 0); err == nil || !strings.Contains(err.Error(), "--local-search embedder") {
		t.Errorf("dense: %v", err)
	}
}

func TestDBSFNormByHand(t *testing.T) {
	// Two scores map to 0.5 ± √2/12 whatever they are; one to 0.5.
	got := dbsfNorm([]scored{{score: 7}, {score: 3}})
	if math.Abs(got[0]-(0.5+math.Sqrt2/12)) > 1e-12 || math.Abs(got[1]-(0.5-math.Sqrt2/12)) > 1e-12 {
		t.Errorf("two: %v", got)
	}
	// 1, 0.6, 0: mean 8/15, sample σ √(0.76/3).
	mean, sd := 1.6/3, math.Sqrt(0.76/3)
	got = dbsfNorm([]scored{{score: 1}, {score: 0.6}, {score: 0}})
	for i, s := range []float64{1, 0.6, 0} {
		if want := (s - mean + 3*sd) / (6 * sd); math.Abs(got[i]-want) > 1e-12 {
			t.Errorf("%v: %v, want %v", s, got[i], want)
		}
	}
	if got := dbsfNorm([]scored{{score: 2}}); got[0] != 0.5 {
		t.Errorf("one: %v", got)
	}
}
