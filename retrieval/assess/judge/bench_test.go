package judge

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chatcache"
)

// slowGen answers every judge call with grade 2 after delay, as a chat
// model that takes delay per call.
type slowGen struct{ delay time.Duration }

func (g slowGen) Stream(ctx context.Context, _ retrieval.Prompt, emit func(retrieval.Delta)) error {
	t := time.NewTimer(g.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	emit(retrieval.Delta{Text: `{"grade": 2, "reason": "partly"}`, Usage: &retrieval.Usage{InputTokens: 300, OutputTokens: 20}})
	return nil
}
func (slowGen) Model() string    { return "slow" }
func (slowGen) Provider() string { return "fake" }

func benchItems(cases, hits int) []Item {
	items := make([]Item, 0, cases*hits)
	for c := range cases {
		for h := range hits {
			items = append(items, Item{Question: fmt.Sprintf("question %d", c), Hit: retrieval.Hit{Rank: h + 1, Chunk: retrieval.Chunk{Title: "T", Text: fmt.Sprintf("passage %d of case %d", h, c)}}})
		}
	}
	return items
}

// BenchmarkRelevance1000Cases judges 1,000 cases × 5 hits, one call per
// hit (calls/case 5), at the default concurrency (4), each call taking
// 3 ms: a model's 300 ms scaled down 100× so a run takes seconds, not
// six minutes (the pool's overhead does not scale with the latency).
// Budget: ratio = wall / (calls / concurrency × latency) ≤ 1.3.
func BenchmarkRelevance1000Cases(b *testing.B) {
	const latency = 3 * time.Millisecond
	items := benchItems(1000, 5)
	j, err := New(slowGen{delay: latency}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var st Stats
	var wall time.Duration
	for b.Loop() {
		t0 := time.Now()
		_, st, err = j.Relevance(context.Background(), items, nil)
		wall += time.Since(t0)
		if err != nil || st.NotJudged > 0 {
			b.Fatalf("%v %+v", err, st)
		}
	}
	ideal := time.Duration(st.Calls) * latency / DefaultConcurrency
	b.ReportMetric(float64(st.Calls)/1000, "calls/case")
	b.ReportMetric(float64(wall)/float64(b.N)/float64(ideal), "ratio")
}

// BenchmarkRelevanceWarmCache1000Cases re-judges 1,000 cases × 5 hits
// from a warm cache, as eval --judge does (Pending, then Relevance): 0
// calls; ns/op is the cost of reading 5,000 entries once. Budget: under
// 10% of an eval of 1,000 cases without --judge
// (BenchmarkEval1000CasesQdrant, about 1 s).
func BenchmarkRelevanceWarmCache1000Cases(b *testing.B) {
	items := benchItems(1000, 5)
	cache := chatcache.Open(filepath.Join(b.TempDir(), "judge"))
	j, err := New(slowGen{}, Options{Cache: cache, Concurrency: 16})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := j.Relevance(context.Background(), items, nil); err != nil {
		b.Fatal(err)
	}
	var st Stats
	for b.Loop() {
		// A new judge each run, as a new process: the disk cache only.
		j, _ := New(slowGen{}, Options{Cache: cache})
		if j.Pending(items) != 0 {
			b.Fatal("cache not warm")
		}
		_, st, _ = j.Relevance(context.Background(), items, nil)
	}
	b.ReportMetric(float64(st.Calls), "judge-calls")
}
