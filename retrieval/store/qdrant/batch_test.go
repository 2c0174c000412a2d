package qdrant

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// batchReqs mixes filters, limits and vectors.
func batchReqs() []retrieval.SearchRequest {
	return []retrieval.SearchRequest{
		{Vector: qdranttest.Embed("ROS 2 publishers and subscribers"), Limit: 3},
		{Vector: qdranttest.Embed("simulate a robot in Gazebo"), Limit: 5, Filters: retrieval.Filters{Modules: []string{"module-2-simulation"}}},
		{Vector: qdranttest.Embed("voice commands"), Limit: 1, Filters: retrieval.Filters{Modules: []string{"module-1-ros2", "module-4-vla"}}},
	}
}

// One QueryBatch answers every request exactly as its own Query would.
func TestSearchBatchMatchesSingleSearches(t *testing.T) {
	for _, coll := range []string{qdranttest.CollectionA, qdranttest.CollectionB} {
		srv := startFake(t, qdranttest.Options{APIKey: testKey})
		s := open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: coll})
		ctx := context.Background()
		reqs := batchReqs()
		var want [][]retrieval.ScoredChunk
		for _, r := range reqs {
			got, err := s.Search(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, got)
		}
		srv.ResetCalls()
		got, err := s.SearchBatch(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: batch differs from single searches:\n%v\n%v", coll, got, want)
		}
		if len(want[2]) != 1 || len(want[0]) != 3 {
			t.Errorf("%s: limits not kept: %d %d", coll, len(want[0]), len(want[2]))
		}
		if calls := srv.Calls(); !reflect.DeepEqual(calls, []string{qc.Points_QueryBatch_FullMethodName}) {
			t.Errorf("%s: calls %v, want one QueryBatch", coll, calls)
		}
	}
}

// On a strict server, one query filtering on an unindexed key fails the
// batch; the pipeline retries one by one so only that query is an error,
// with the server's message. A refused key fails all without retrying.
func TestRetrieveBatchStrictServer(t *testing.T) {
	srv := startFake(t, qdranttest.Options{APIKey: testKey, StrictFilters: true})
	c := qdranttest.TextbookA()
	c.Name = "no_tags_index"
	delete(c.Indexed, "tags")
	srv.AddCollection(c)
	s := open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: c.Name})
	p := &retrieval.Pipeline{Embedder: dimEmbedder{}, Store: s}
	reqs := batchReqs()
	qs := make([]retrieval.Query, len(reqs))
	vecs := make([][]float32, len(reqs))
	took := make([]time.Duration, len(reqs))
	for i, r := range reqs {
		qs[i] = retrieval.Query{Question: "q", TopK: r.Limit, Filters: r.Filters}
		vecs[i] = r.Vector
	}
	qs[1].Filters = retrieval.Filters{Tags: []string{"gazebo"}}
	res, errs := p.RetrieveBatch(context.Background(), qs, vecs, took)
	if errs[0] != nil || errs[2] != nil || len(res[0].Hits) == 0 || len(res[2].Hits) != 1 {
		t.Fatalf("the other queries must run: %v %v (%d, %d hits)", errs[0], errs[2], len(res[0].Hits), len(res[2].Hits))
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "Index required but not found") {
		t.Fatalf("the unindexed filter: %v", errs[1])
	}
	if n := strings.Count(strings.Join(srv.Calls(), " "), "QueryBatch"); n != 1 {
		t.Errorf("%d QueryBatch calls, want 1: %v", n, srv.Calls())
	}

	bad := open(t, Options{URL: srv.URL(), APIKey: "wrong", Collection: c.Name})
	p.Store = bad
	srv.ResetCalls()
	qs[1].Filters = retrieval.Filters{}
	_, errs = p.RetrieveBatch(context.Background(), qs, vecs, took)
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "QDRANT_API_KEY") {
			t.Errorf("query %d with a refused key: %v", i, err)
		}
	}
	if slices.Contains(srv.Calls(), qc.Points_Query_FullMethodName) {
		t.Errorf("a refused key was retried one by one: %v", srv.Calls())
	}
}

type dimEmbedder struct{}

func (dimEmbedder) Name() string { return "dim" }
func (dimEmbedder) Dim() int     { return 0 }
func (dimEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, nil
}
