package cli

import (
	"testing"
	"time"

	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/store/qdrant"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// benchRatio runs each of runs as a whole process b.N times and reports
// its time per query and its ratio to the first (the plain query).
func benchRatio(b *testing.B, env map[string]string, q string, runs []struct {
	name string
	args []string
}) {
	var plain time.Duration
	for _, r := range runs {
		b.Run(r.name, func(b *testing.B) {
			var spent time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				code, _, errs := runB(b, env, append(append([]string{"query"}, r.args...), q)...)
				spent += time.Since(t0)
				if code != ExitOK {
					b.Fatalf("exit %d: %s", code, errs)
				}
			}
			per := spent / time.Duration(b.N)
			if r.name == runs[0].name {
				plain = per
			}
			b.ReportMetric(float64(per.Microseconds())/1000, "ms/query")
			b.ReportMetric(float64(per)/float64(plain), "ratio")
		})
	}
}

// BenchmarkExplainQdrant: --explain against the in-process Qdrant with
// 50 ms search and 300 ms embed latency, as a ratio to a plain query
// (budget ≤ 1.9×: the variants' embed call runs beside the question's,
// then one batched search scores them); a what-if adds one document
// embed call.
func BenchmarkExplainQdrant(b *testing.B) {
	qs, cs, env := benchFakes(b)
	qs.SetLatency(50 * time.Millisecond)
	cs.SetLatency(300 * time.Millisecond)
	ref := "docs/module-3-isaac/04-reinforcement-learning.md"
	benchRatio(b, env, "How do publishers and subscribers exchange messages?", []struct {
		name string
		args []string
	}{
		{"plain", nil},
		{"explain", []string{"--explain"}},
		{"expect-explained", []string{"--expect", ref}},
		{"what-if", []string{"--what-if-add", ref + "=publishers"}},
	})
}

// BenchmarkExplainLocal: --explain on the demo index, as a ratio to a
// plain query (budget ≤ 1.3×, the index's load included as a user waits
// for it).
func BenchmarkExplainLocal(b *testing.B) {
	benchRatio(b, nil, voiceQ, []struct {
		name string
		args []string
	}{
		{"plain", nil},
		{"explain", []string{"--explain"}},
		{"expect-explained", []string{"--expect", voiceRef}},
	})
}

// benchFakes starts the in-process Qdrant with the textbook and the
// Cohere fake for a benchmark, and the environment that points at them.
func benchFakes(b *testing.B) (*qdranttest.Server, *coheretest.Server, map[string]string) {
	qdrant.SilenceGRPCLogs(nil)
	qs, err := qdranttest.Start(qdranttest.Options{APIKey: testQdrantKey})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(qs.Close)
	qs.AddCollection(qdranttest.TextbookA())
	cs := coheretest.NewServer(testCohereKey)
	b.Cleanup(cs.Close)
	return qs, cs, map[string]string{
		"QDRANT_URL": qs.URL(), "QDRANT_API_KEY": testQdrantKey, "QDRANT_COLLECTION": qdranttest.CollectionA,
		"COHERE_API_KEY": testCohereKey, "COHERE_BASE_URL": cs.URL,
	}
}
