package eval_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/store/qdrant"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// qdrantWorldOf is an eval of n cases against the in-process Qdrant gRPC
// server (50 ms a call) holding coll and Cohere server (300 ms a call),
// through the real clients: the budget scenario of the README (300 ms
// embed, 50 ms search).
func qdrantWorldOf(b *testing.B, n int, coll qdranttest.Collection) (*retrieval.Pipeline, eval.Set, *qdranttest.Server, *coheretest.Server) {
	b.Helper()
	qdrant.SilenceGRPCLogs(nil)
	co := coheretest.NewServer("co-key")
	b.Cleanup(co.Close)
	co.SetLatency(embedLatency)
	emb, err := cohere.New(cohere.Options{APIKey: "co-key", BaseURL: co.URL, CacheSize: -1})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := qdranttest.Start(qdranttest.Options{APIKey: "q-key"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	srv.AddCollection(coll)
	store, err := qdrant.Open(context.Background(), qdrant.Options{URL: srv.URL(), APIKey: "q-key", Collection: coll.Name, Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = store.Close() })
	srv.SetLatency(searchLatency)
	corpus := qdranttest.Textbook()
	set := eval.Set{Name: "qdrant-bench", Thresholds: eval.Thresholds{MinHitAtK: ptr(0.0)}}
	for i := 0; i < n; i++ {
		c := corpus[i%len(corpus)]
		set.Cases = append(set.Cases, eval.Case{
			ID: fmt.Sprintf("q%04d", i), Question: c.Text,
			Expect: eval.Expect{DocPaths: []string{c.DocPath}},
		})
	}
	return &retrieval.Pipeline{Embedder: emb, Store: store, Backend: "qdrant", Collection: coll.Name}, set, srv, co
}

func benchEvalQdrant(b *testing.B, n int) { benchEvalQdrantWith(b, n, eval.Options{}) }

func benchEvalQdrantWith(b *testing.B, n int, opts eval.Options) {
	benchEvalQdrantOn(b, n, opts, qdranttest.TextbookA())
}

func benchEvalQdrantOn(b *testing.B, n int, opts eval.Options, coll qdranttest.Collection) {
	p, set, srv, co := qdrantWorldOf(b, n, coll)
	var batchRPCs, singleRPCs, embeds int
	var wall, cpu time.Duration
	serverBefore := srv.ServerTime()
	for b.Loop() {
		srv.ResetCalls()
		before := co.Requests()
		t0 := time.Now()
		cpu0, _ := processCPU()
		rep, err := eval.Run(context.Background(), p, set, opts)
		wall += time.Since(t0)
		cpu1, _ := processCPU()
		cpu += cpu1 - cpu0
		if err != nil || rep.Summary.Errors > 0 {
			b.Fatalf("run: %v %v", err, rep.Reasons)
		}
		calls := strings.Join(srv.Calls(), " ") + " "
		batchRPCs = strings.Count(calls, "/QueryBatch ")
		singleRPCs = strings.Count(calls, "/Query ") // the latency sample's own searches
		embeds = co.Requests() - before
		if ls := rep.LatencySample; ls != nil {
			b.ReportMetric(ls.P95MS, "sample-p95-ms")
		}
	}
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "ms/run")
	// cpu-ms/run is the whole process's CPU time during the runs (the
	// in-process servers' share included), steadier than wall time on a
	// shared machine.
	if _, ok := processCPU(); ok {
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/run")
	}
	// server-ms is the fake's own compute (exhaustive scans, not Qdrant's
	// index), without its simulated latency.
	b.ReportMetric(float64((srv.ServerTime()-serverBefore).Milliseconds())/float64(b.N), "server-ms/run")
	b.ReportMetric(float64(batchRPCs), "batch-rpcs")
	b.ReportMetric(float64(singleRPCs), "sample-rpcs")
	// embed-calls includes one call per sampled case.
	b.ReportMetric(float64(embeds), "embed-calls")
}

// BenchmarkEval100CasesQdrant: budget ≤ 600 ms/run, embed calls 2.
func BenchmarkEval100CasesQdrant(b *testing.B) { benchEvalQdrant(b, 100) }

// BenchmarkEval1000CasesQdrant: budget ≤ 1000 ms/run, ≤ 20 search RPCs,
// embed calls ceil(1000/96) = 11.
func BenchmarkEval1000CasesQdrant(b *testing.B) { benchEvalQdrant(b, 1000) }

// BenchmarkEval1000CasesQdrantANNCheck: eval --ann-check, one more batched
// call per search batch, beside it (budget ≤ 1.3× BenchmarkEval1000CasesQdrant).
func BenchmarkEval1000CasesQdrantANNCheck(b *testing.B) {
	benchEvalQdrantWith(b, 1000, eval.Options{ANNCheck: true})
}

// BenchmarkEval1000CasesQdrantHybrid: the same eval on a hybrid
// collection (dense + bm25, RRF; each search a fused query and one per
// arm in the same batch): budget ≤ 1.2× BenchmarkEval1000CasesQdrant.
func BenchmarkEval1000CasesQdrantHybrid(b *testing.B) {
	benchEvalQdrantOn(b, 1000, eval.Options{}, qdranttest.TextbookHybrid())
}
