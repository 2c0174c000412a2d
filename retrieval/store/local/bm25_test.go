package local

import (
	"context"
	"strings"
	"testing"

	"ragscope/retrieval"
)

func TestBM25RanksRareTermsFirst(t *testing.T) {
	corpus := []retrieval.Chunk{
		{ID: "1", Text: "robots move joints with motors"},
		{ID: "2", Text: "robots sense the world with lidar"},
		{ID: "3", Text: "robots plan paths"},
		{ID: "4", Text: "the costmap marks obstacles for robots"},
	}
	r := NewBM25(corpus)
	docs := []string{"robots robots robots everywhere", "a costmap of obstacles near robots", "lidar point clouds"}
	rel, err := r.Rerank(context.Background(), "what does a costmap hold for robots?", docs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rel) != 2 || rel[0].Index != 1 {
		t.Fatalf("relevance %+v: want 2 results, the costmap document first", rel)
	}
	for _, x := range rel {
		if x.Score < 0 || x.Score > 1 {
			t.Fatalf("score %v outside 0..1", x.Score)
		}
	}
	if rel[0].Score <= rel[1].Score {
		t.Fatalf("rare term not weighted: %+v", rel)
	}
}

func TestBM25WithoutCorpusAndNoMatch(t *testing.T) {
	r := NewBM25(nil)
	rel, err := r.Rerank(context.Background(), "ROS 2 nodes", []string{"gazebo worlds", "a ros2 node talks", "urdf"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(rel) != 3 || rel[0].Index != 1 || rel[0].Score <= 0 || rel[2].Score != 0 {
		t.Fatalf("relevance %+v: want the ros2 document first (\"ROS 2\" matches \"ros2\"), misses at 0", rel)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Rerank(ctx, "q", []string{"a"}, 1); err == nil {
		t.Fatal("a cancelled context must fail")
	}
}

func TestBM25OnTheDemo(t *testing.T) {
	ix, corpus, err := OpenDemo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := &retrieval.Pipeline{Embedder: corpus.Embedder, Store: ix, Reranker: NewBM25(ix.Chunks())}
	res, err := p.Retrieve(context.Background(), retrieval.Query{Question: "What is a URDF file?", TopK: 5, Rerank: retrieval.RerankOptions{On: true}})
	if err != nil || res.Rerank == nil || res.Rerank.Err != nil {
		t.Fatalf("err %v rerank %+v", err, res.Rerank)
	}
	if len(res.Hits) == 0 || res.Rerank.Candidates != 20 {
		t.Fatalf("%d hits from %d candidates", len(res.Hits), res.Rerank.Candidates)
	}
	if !strings.Contains(strings.ToLower(res.Hits[0].Chunk.Text+res.Hits[0].Chunk.Section), "urdf") {
		t.Errorf("top hit does not mention URDF: %s", res.Hits[0].Chunk.Section)
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Fatal("reranked hits out of order")
		}
	}
}
