package present

import (
	"testing"

	"ragscope/retrieval"
)

// TestMoveMarkAndSourceKey: the marks, and one source for two chunkings
// of a section.
func TestMoveMarkAndSourceKey(t *testing.T) {
	for _, tc := range []struct {
		ra, rb int
		want   string
	}{{4, 1, "↑3"}, {1, 3, "↓2"}, {2, 2, "="}, {2, 0, "only in A"}, {0, 5, "only in B"}, {0, 0, ""}} {
		if got := MoveMark(tc.ra, tc.rb, "A", "B"); got != tc.want {
			t.Errorf("MoveMark(%d, %d) = %q, want %q", tc.ra, tc.rb, got, tc.want)
		}
	}
	// Two chunkings of one section: different chunk ids, one source.
	h1 := retrieval.Hit{Chunk: retrieval.Chunk{ID: "c-1", DocPath: "./docs/a.md"}, Citation: retrieval.Citation{URL: "https://x.org/docs/a#gears"}}
	h2 := retrieval.Hit{Chunk: retrieval.Chunk{ID: "c-77", DocPath: "docs/a.md", HeadingID: "gears"}}
	if SourceKey(h1) != "docs/a.md#gears" || SourceKey(h2) != SourceKey(h1) {
		t.Errorf("keys %q and %q", SourceKey(h1), SourceKey(h2))
	}
	h3 := retrieval.Hit{Chunk: retrieval.Chunk{ID: "c-2"}, Citation: retrieval.Citation{URL: "https://x.org/docs/b?utm=1#intro"}}
	if got := SourceKey(h3); got != "https://x.org/docs/b#intro" {
		t.Errorf("URL key %q", got)
	}
}
