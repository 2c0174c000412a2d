package qdrant

import (
	"context"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// BenchmarkSearchOverhead measures one Search at top_k=10 through the real
// client against the in-process server. ragscope-µs/op subtracts the
// server handlers' own time; it still includes gRPC marshalling and the
// loopback round trip, so it is an upper bound of ragscope's overhead.
func BenchmarkSearchOverhead(b *testing.B) {
	srv := startFake(b, qdranttest.Options{APIKey: testKey})
	s := open(b, Options{URL: srv.URL(), APIKey: testKey, Collection: qdranttest.CollectionA})
	ctx := context.Background()
	req := retrieval.SearchRequest{Vector: qdranttest.Embed("ROS 2 publishers and subscribers"), Limit: 10,
		Filters: retrieval.Filters{Modules: []string{"module-1-ros2", "module-3-isaac"}}}
	if _, err := s.Search(ctx, req); err != nil { // warm up: shape and detection
		b.Fatal(err)
	}
	before := srv.ServerTime()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := s.Search(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	total := time.Since(start)
	b.StopTimer()
	server := srv.ServerTime() - before
	b.ReportMetric(float64((total-server).Microseconds())/float64(b.N), "ragscope-µs/op")
	b.ReportMetric(float64(server.Microseconds())/float64(b.N), "server-µs/op")
}

// BenchmarkDecodeTop10 measures decoding ten points' payloads (schema B,
// the nested one) into chunks: ragscope's pure CPU share of a query.
func BenchmarkDecodeTop10(b *testing.B) {
	chunks := qdranttest.Textbook()[:10]
	pts := make([]*qc.ScoredPoint, len(chunks))
	for i, c := range chunks {
		pts[i] = &qc.ScoredPoint{Id: qc.NewIDNum(uint64(i)), Score: 0.5, Payload: qdranttest.PayloadB(c)}
	}
	m := DefaultMapping()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range pts {
			_ = m.Decode(pointID(p.GetId()), p.GetPayload())
		}
	}
}

// BenchmarkEndToEnd runs one uncached question through the pipeline with
// 300 ms of simulated Cohere latency and 50 ms of Qdrant latency.
func BenchmarkEndToEnd(b *testing.B) {
	co := coheretest.NewServer("co-key")
	b.Cleanup(co.Close)
	co.SetLatency(300 * time.Millisecond)
	srv := startFake(b, qdranttest.Options{APIKey: testKey})
	emb, err := cohere.New(cohere.Options{APIKey: "co-key", BaseURL: co.URL, CacheSize: -1, ModelDim: 1024})
	if err != nil {
		b.Fatal(err)
	}
	s := open(b, Options{URL: srv.URL(), APIKey: testKey, Collection: qdranttest.CollectionA})
	ctx := context.Background()
	if err := s.CheckVectorSize(ctx, emb.Dim()); err != nil { // done once at start-up
		b.Fatal(err)
	}
	srv.SetLatency(50 * time.Millisecond)
	p := &retrieval.Pipeline{Embedder: emb, Store: s}
	q := retrieval.Query{Question: "How does Nav2 plan a path around obstacles?", TopK: 10}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := p.Retrieve(ctx, q)
		if err != nil || len(res.Hits) == 0 {
			b.Fatalf("retrieve: %v (%d hits)", err, len(res.Hits))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/query")
}

// BenchmarkFirstQuery runs a process's first question (the collection not
// yet checked) through the pipeline with 300 ms of Cohere latency and 50 ms
// on every Qdrant call: the collection check (Collections/Get) runs beside
// the embedding, so the floor is 300 + 50 ms. floor-ratio is the time over
// that floor (budget: ≤ 1.05).
func BenchmarkFirstQuery(b *testing.B) {
	const embedLatency, searchLatency = 300 * time.Millisecond, 50 * time.Millisecond
	co := coheretest.NewServer("co-key")
	b.Cleanup(co.Close)
	co.SetLatency(embedLatency)
	srv := startFake(b, qdranttest.Options{APIKey: testKey})
	emb, err := cohere.New(cohere.Options{APIKey: "co-key", BaseURL: co.URL, CacheSize: -1})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	q := retrieval.Query{Question: "How does Nav2 plan a path around obstacles?", TopK: 10}
	var spent time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv.SetLatency(0)
		s := open(b, Options{URL: srv.URL(), APIKey: testKey, Collection: qdranttest.CollectionA})
		srv.SetLatency(searchLatency)
		p := &retrieval.Pipeline{Embedder: emb, Store: s}
		b.StartTimer()
		t0 := time.Now()
		res, err := p.Retrieve(ctx, q)
		spent += time.Since(t0)
		if err != nil || len(res.Hits) == 0 {
			b.Fatalf("retrieve: %v (%d hits)", err, len(res.Hits))
		}
	}
	per := spent / time.Duration(b.N)
	b.ReportMetric(float64(per.Milliseconds()), "ms/query")
	b.ReportMetric(float64(per)/float64(embedLatency+searchLatency), "floor-ratio")
}

// BenchmarkHybridQuery compares one search at top_k=10 with 50 ms of
// Qdrant latency on a dense collection and on a hybrid one (a fused
// query and each arm alone, for the per-arm ranks, in one QueryBatch):
// budget hybrid ≤ 1.1× dense.
func BenchmarkHybridQuery(b *testing.B) {
	for _, coll := range []string{qdranttest.CollectionA, qdranttest.CollectionHybrid} {
		b.Run(coll, func(b *testing.B) {
			srv := startFake(b, qdranttest.Options{APIKey: testKey})
			srv.AddCollection(qdranttest.TextbookHybrid())
			s := open(b, Options{URL: srv.URL(), APIKey: testKey, Collection: coll})
			ctx := context.Background()
			q := "How does Nav2 plan a path around obstacles?"
			req := retrieval.SearchRequest{Vector: qdranttest.Embed(q), Text: q, Limit: 10}
			if _, err := s.Search(ctx, req); err != nil { // warm up: collection info, version
				b.Fatal(err)
			}
			srv.SetLatency(50 * time.Millisecond)
			for b.Loop() {
				hits, err := s.Search(ctx, req)
				if err != nil || len(hits) != 10 {
					b.Fatal(err, len(hits))
				}
			}
		})
	}
}
