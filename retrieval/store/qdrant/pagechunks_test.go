package qdrant

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// TestPageChunks: a page's chunks come back whole and in reading order in
// both payload schemas; an unknown page has none; a missing collection is
// an error naming the collections.
func TestPageChunks(t *testing.T) {
	srv := startFake(t, qdranttest.Options{APIKey: testKey})
	ctx := context.Background()
	book := qdranttest.Textbook()
	doc := book[0].DocPath
	var want []string
	for _, c := range book {
		if c.DocPath == doc {
			want = append(want, c.ID)
		}
	}
	if len(want) < 2 {
		t.Fatalf("the fake textbook's first page has %d chunks; the test needs 2 or more", len(want))
	}
	for _, coll := range []string{qdranttest.CollectionA, qdranttest.CollectionB} {
		s := open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: coll})
		var _ retrieval.PageChunker = s
		got, err := s.PageChunks(ctx, doc)
		if err != nil {
			t.Fatalf("%s: %v", coll, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d chunks, want %d", coll, len(got), len(want))
		}
		for i, c := range got {
			if c.DocPath != doc || c.Text == "" {
				t.Errorf("%s: chunk %d = %+v", coll, i, c)
			}
			if idx, ok := c.Index(); !ok || idx != i {
				t.Errorf("%s: chunk %d has index %v", coll, i, c.ChunkIndex)
			}
		}
		none, err := s.PageChunks(ctx, "docs/nowhere.md")
		if err != nil || len(none) != 0 {
			t.Errorf("%s: missing page = %d chunks, %v", coll, len(none), err)
		}
	}
	missing := open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: "missing"})
	if _, err := missing.PageChunks(ctx, doc); err == nil {
		t.Error("missing collection: no error")
	}
}

// TestPageChunksPagesAndBounds: a page of more points than one scroll
// call reads comes back whole, in chunk index order although the ids run
// the other way; more than retrieval.MaxPageChunks is ErrPageTooLarge.
func TestPageChunksPagesAndBounds(t *testing.T) {
	srv := startFake(t, qdranttest.Options{APIKey: testKey})
	const n = pageScroll*2 + 7
	coll := qdranttest.Collection{Name: "long", Dim: 4}
	for i := 0; i < n; i++ {
		c := retrieval.Chunk{ID: fmt.Sprint(n - i), Text: fmt.Sprintf("part %d", i), DocPath: "docs/long.md", Title: "Long",
			ChunkIndex: retrieval.IntPtr(i), TotalChunks: retrieval.IntPtr(n)}
		coll.Points = append(coll.Points, qdranttest.Point{ID: uint64(n - i), Vector: []float32{1, 0, 0, 0}, Payload: qdranttest.PayloadA(c)})
	}
	coll.Points = append(coll.Points, qdranttest.Point{ID: n + 1, Vector: []float32{0, 1, 0, 0},
		Payload: qdranttest.PayloadA(retrieval.Chunk{ID: "other", Text: "other page", DocPath: "docs/other.md", ChunkIndex: retrieval.IntPtr(0)})})
	srv.AddCollection(coll)
	s := open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: "long"})
	got, err := s.PageChunks(context.Background(), "docs/long.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d chunks, want %d", len(got), n)
	}
	for i, c := range got {
		if idx, _ := c.Index(); idx != i || c.Text != fmt.Sprintf("part %d", i) {
			t.Fatalf("chunk %d: index %d text %q", i, idx, c.Text)
		}
	}

	big := qdranttest.Collection{Name: "big", Dim: 4}
	for i := 0; i <= retrieval.MaxPageChunks; i++ {
		big.Points = append(big.Points, qdranttest.Point{ID: uint64(i + 1), Vector: []float32{1, 0, 0, 0},
			Payload: qdranttest.PayloadA(retrieval.Chunk{Text: "x", DocPath: "docs/all.md", ChunkIndex: retrieval.IntPtr(i)})})
	}
	srv.AddCollection(big)
	s = open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: "big"})
	if _, err := s.PageChunks(context.Background(), "docs/all.md"); !errors.Is(err, retrieval.ErrPageTooLarge) {
		t.Fatalf("err = %v, want ErrPageTooLarge", err)
	}
}
