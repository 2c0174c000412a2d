package local

import (
	"context"
	"errors"
	"testing"

	"ragscope/retrieval"
)

// TestPageChunksDemo: a demo page's chunks come back in reading order,
// all of them and only them, as copies; an unknown page has none; a
// cancelled context is an error.
func TestPageChunksDemo(t *testing.T) {
	ctx := context.Background()
	ix, _, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var _ retrieval.PageChunker = ix
	const doc = "docs/module-1-ros2/01-what-is-ros2.md"
	want := 0
	for i := range ix.chunks {
		if ix.chunks[i].DocPath == doc {
			want++
		}
	}
	got, err := ix.PageChunks(ctx, " "+doc+" ")
	if err != nil {
		t.Fatal(err)
	}
	if want < 2 || len(got) != want {
		t.Fatalf("%d chunks, want %d (2 or more)", len(got), want)
	}
	for i, c := range got {
		if c.DocPath != doc {
			t.Errorf("chunk %d is of %s", i, c.DocPath)
		}
		if idx, ok := c.Index(); !ok || idx != i {
			t.Errorf("chunk %d has index %v", i, c.ChunkIndex)
		}
	}
	got[0].Tags = append(got[0].Tags[:0], "changed")
	if again, _ := ix.PageChunks(ctx, doc); len(again[0].Tags) > 0 && again[0].Tags[0] == "changed" {
		t.Error("PageChunks handed out the index's own chunk")
	}
	if none, err := ix.PageChunks(ctx, "docs/nowhere.md"); err != nil || len(none) != 0 {
		t.Errorf("missing page = %d chunks, %v", len(none), err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.PageChunks(cctx, doc); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestSortReadingOrder: by chunk index, unknown indexes last, ties by id.
func TestSortReadingOrder(t *testing.T) {
	cs := []retrieval.Chunk{{ID: "n"}, {ID: "b", ChunkIndex: retrieval.IntPtr(1)}, {ID: "a2", ChunkIndex: retrieval.IntPtr(0)}, {ID: "a1", ChunkIndex: retrieval.IntPtr(0)}}
	retrieval.SortReadingOrder(cs)
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	if got := ids[0] + ids[1] + ids[2] + ids[3]; got != "a1a2bn" {
		t.Fatalf("order = %v", ids)
	}
}
