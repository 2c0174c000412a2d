package eval_test

import (
	"context"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/store/local"
	"ragscope/retrieval/store/local/demo"
)

// The embedded demo golden set passes on the demo backend, and covers
// every kind of case a golden set can hold.
func TestDemoGoldenSetPasses(t *testing.T) {
	set, err := eval.Parse(demo.GoldenSet(), demo.GoldenSetName)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Cases) < 20 {
		t.Errorf("%d cases, want at least 20", len(set.Cases))
	}
	kinds := map[eval.Kind]int{}
	modules := map[string]bool{}
	filtered := 0
	for _, c := range set.Cases {
		kinds[eval.KindOf(c)]++
		for _, p := range c.Expect.DocPaths {
			if parts := strings.Split(strings.TrimPrefix(p, "docs/"), "/"); len(parts) > 1 {
				modules[parts[0]] = true
			}
		}
		if !c.Filters.IsEmpty() {
			filtered++
		}
	}
	for _, m := range []string{"module-1-ros2", "module-2-simulation", "module-3-isaac", "module-4-vla", "capstone"} {
		if !modules[m] {
			t.Errorf("no case expects %s", m)
		}
	}
	if kinds[eval.KindNoAnswer] == 0 || kinds[eval.KindSelectedText] < 2 || filtered == 0 {
		t.Errorf("kinds %v, %d filter cases", kinds, filtered)
	}

	ix, corpus, err := local.OpenDemo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := &retrieval.Pipeline{Embedder: corpus.Embedder, Store: ix, URLs: retrieval.URLBuilder{DocsBase: demo.DocsBaseURL, SiteURL: demo.SiteURL}, Backend: "demo"}
	rep, err := eval.Run(context.Background(), p, set, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	t.Logf("demo: hit@1 %.3f hit@k %.3f MRR %.3f nDCG %.3f recall %.3f kw %.3f md %.3f p95 %.2f ms; suggested threshold %v",
		s.HitAt1, s.HitAtK, s.MRR, s.NDCG, s.Recall, deref(s.KeywordCoverage), deref(s.MetadataCompleteness), s.Latency.P95MS, deref(rep.Calibration.Suggested))
	if !rep.Passed {
		t.Errorf("the demo set fails on the demo: %s", strings.Join(rep.Reasons, "\n"))
	}
	for _, c := range rep.Cases {
		if c.Kind == eval.KindSelectedText || c.Kind == eval.KindNoAnswer {
			if c.Status != eval.StatusPass {
				t.Errorf("%s: %v", c.ID, c.Reasons)
			}
		}
		if c.Status == eval.StatusMiss {
			t.Logf("miss %s: %v", c.ID, c.Reasons)
		}
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}
