package qdranttest

import (
	"context"
	"math"
	"strings"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval/provider/bm25"
)

// hybridServer serves three points: dense scores against [1,0] are
// A 1, B 0.6, C 0; BM25 documents A "cat", B "dog", C "cat cat".
func hybridServer(t *testing.T, opts Options) (*Server, *qc.Client) {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	pt := func(id uint64, vec []float32, text string) Point {
		return Point{ID: id, Vector: vec, Sparse: map[string]bm25.Vector{"bm25": SparseBM25(text)},
			Payload: map[string]*qc.Value{"name": qc.NewValueString(text)}}
	}
	s.AddCollection(Collection{
		Name: "h", VectorName: "dense", Dim: 2,
		Sparse: map[string]qc.Modifier{"bm25": qc.Modifier_Idf},
		Points: []Point{pt(1, []float32{1, 0}, "cat"), pt(2, []float32{0.6, 0.8}, "dog"), pt(3, []float32{0, 1}, "cat cat")},
	})
	c, err := qc.NewClient(&qc.Config{Host: "127.0.0.1", Port: s.Port(), SkipCompatibilityCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return s, c
}

func arms(sparse *qc.Query) []*qc.PrefetchQuery {
	return []*qc.PrefetchQuery{
		{Query: qc.NewQueryDense([]float32{1, 0}), Using: qc.PtrOf("dense"), Limit: qc.PtrOf(uint64(10))},
		{Query: sparse, Using: qc.PtrOf("bm25"), Limit: qc.PtrOf(uint64(10))},
	}
}

func catQuery() *qc.Query {
	v := bm25.Query("cats")
	return qc.NewQuerySparse(v.Indices, v.Values)
}

type idScore struct {
	id    uint64
	score float64
}

func query(t *testing.T, c *qc.Client, q *qc.QueryPoints) []idScore {
	t.Helper()
	q.CollectionName = "h"
	res, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]idScore, len(res))
	for i, p := range res {
		out[i] = idScore{p.GetId().GetNum(), float64(p.GetScore())}
	}
	return out
}

func expect(t *testing.T, got []idScore, want ...idScore) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].id != want[i].id || math.Abs(got[i].score-want[i].score) > 1e-4 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestSparseIdfScores(t *testing.T) {
	_, c := hybridServer(t, Options{})
	// idf(cat) with 3 points, 2 holding it: ln((3−2+0.5)/(2+0.5)+1) = ln 1.6.
	// A "cat": len 1, 2.2/(1+1.2·(0.25+0.75/256)); C "cat cat": 4.4/(2+1.2·(0.25+1.5/256)).
	idf := math.Log(1.6)
	a := 2.2 / (1 + 1.2*(0.25+0.75/256))
	cc := 4.4 / (2 + 1.2*(0.25+1.5/256))
	got := query(t, c, &qc.QueryPoints{Query: catQuery(), Using: qc.PtrOf("bm25")})
	expect(t, got, idScore{3, idf * cc}, idScore{1, idf * a}) // B shares no index: not returned
}

func TestRRFDefaultKAndSetK(t *testing.T) {
	_, c := hybridServer(t, Options{})
	// dense: A, B, C; bm25: C, A. Default k 2, zero-based positions:
	// A 1/2+1/3, C 1/4+1/2, B 1/3.
	got := query(t, c, &qc.QueryPoints{Prefetch: arms(catQuery()), Query: qc.NewQueryFusion(qc.Fusion_RRF)})
	expect(t, got, idScore{1, 1.0/2 + 1.0/3}, idScore{3, 1.0/4 + 1.0/2}, idScore{2, 1.0 / 3})
	got = query(t, c, &qc.QueryPoints{Prefetch: arms(catQuery()), Query: qc.NewQueryRRF(&qc.Rrf{K: qc.PtrOf(uint32(60))})})
	expect(t, got, idScore{1, 1.0/60 + 1.0/61}, idScore{3, 1.0/62 + 1.0/60}, idScore{2, 1.0 / 61})
	got = query(t, c, &qc.QueryPoints{Prefetch: arms(catQuery()), Query: qc.NewQueryFusion(qc.Fusion_RRF), Limit: qc.PtrOf(uint64(1))})
	expect(t, got, idScore{1, 1.0/2 + 1.0/3})
}

func TestDBSF(t *testing.T) {
	_, c := hybridServer(t, Options{})
	// Dense 1, 0.6, 0: mean 8/15, sample sd √(0.38/1.5); each maps to
	// (s − mean + 3sd)/6sd. Two sparse scores map to 0.5 ± √2/12 whatever
	// their values.
	mean, sd := 1.6/3, math.Sqrt(0.76/3)
	norm := func(s float64) float64 { return (s - mean + 3*sd) / (6 * sd) }
	hi, lo := 0.5+math.Sqrt2/12, 0.5-math.Sqrt2/12
	got := query(t, c, &qc.QueryPoints{Prefetch: arms(catQuery()), Query: qc.NewQueryFusion(qc.Fusion_DBSF)})
	expect(t, got, idScore{1, norm(1) + lo}, idScore{3, norm(0) + hi}, idScore{2, norm(0.6)})
}

func TestPrefetchLimitAndFilterReachArms(t *testing.T) {
	_, c := hybridServer(t, Options{})
	pf := arms(catQuery())
	pf[0].Limit = qc.PtrOf(uint64(1)) // dense arm keeps A only
	got := query(t, c, &qc.QueryPoints{Prefetch: pf, Query: qc.NewQueryFusion(qc.Fusion_RRF)})
	expect(t, got, idScore{1, 1.0/2 + 1.0/3}, idScore{3, 1.0 / 2})
	got = query(t, c, &qc.QueryPoints{Prefetch: arms(catQuery()), Query: qc.NewQueryFusion(qc.Fusion_RRF),
		Filter: &qc.Filter{MustNot: []*qc.Condition{qc.NewMatchKeyword("name", "cat")}}})
	// A filtered out of both arms: dense B, C; bm25 C.
	expect(t, got, idScore{3, 1.0/3 + 1.0/2}, idScore{2, 1.0 / 2})
}

func TestDocumentInference(t *testing.T) {
	doc := func(model string) *qc.Query {
		return qc.NewQueryNearest(qc.NewVectorInputDocument(&qc.Document{Text: "Cats?", Model: model}))
	}
	_, c := hybridServer(t, Options{Version: "1.15.2"})
	byVec := query(t, c, &qc.QueryPoints{Query: catQuery(), Using: qc.PtrOf("bm25")})
	byDoc := query(t, c, &qc.QueryPoints{Query: doc("qdrant/bm25"), Using: qc.PtrOf("bm25")})
	expect(t, byDoc, byVec...)
	_, err := c.Query(context.Background(), &qc.QueryPoints{CollectionName: "h", Query: doc("prithivida/Splade_PP_en_v1"), Using: qc.PtrOf("bm25")})
	if err == nil || !strings.Contains(err.Error(), "Splade_PP_en_v1") {
		t.Fatalf("SPLADE inference: err = %v, want refused naming the model", err)
	}
	_, old := hybridServer(t, Options{Version: "1.15.1"})
	_, err = old.Query(context.Background(), &qc.QueryPoints{CollectionName: "h", Query: doc("qdrant/bm25"), Using: qc.PtrOf("bm25")})
	if err == nil || !strings.Contains(err.Error(), "1.15.2") {
		t.Fatalf("inference on 1.15.1: err = %v, want refused", err)
	}
}

func TestQueryBatchHybrid(t *testing.T) {
	_, c := hybridServer(t, Options{})
	res, err := c.QueryBatch(context.Background(), &qc.QueryBatchPoints{CollectionName: "h", QueryPoints: []*qc.QueryPoints{
		{Prefetch: arms(catQuery()), Query: qc.NewQueryFusion(qc.Fusion_RRF)},
		{Query: catQuery(), Using: qc.PtrOf("bm25")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || len(res[0].GetResult()) != 3 || len(res[1].GetResult()) != 2 {
		t.Fatalf("batch = %v", res)
	}
}

func TestCollectionInfoSparse(t *testing.T) {
	_, c := hybridServer(t, Options{})
	info, err := c.GetCollectionInfo(context.Background(), "h")
	if err != nil {
		t.Fatal(err)
	}
	p := info.GetConfig().GetParams()
	if p.GetVectorsConfig().GetParamsMap().GetMap()["dense"].GetSize() != 2 {
		t.Fatalf("dense config = %v", p.GetVectorsConfig())
	}
	if m := p.GetSparseVectorsConfig().GetMap()["bm25"]; m == nil || m.GetModifier() != qc.Modifier_Idf {
		t.Fatalf("sparse config = %v", p.GetSparseVectorsConfig())
	}
}
