package links

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
)

// countingChecker answers every URL as found and counts the checks.
type countingChecker struct{ n atomic.Int64 }

func (c *countingChecker) Check(_ context.Context, rawURL string) Result {
	c.n.Add(1)
	return Result{URL: rawURL, Status: StatusOK}
}

// TestAuditStopsAtTheFirstProgressTick cancels audits of 5,000 distinct
// URLs at the first progress tick of each phase: Audit returns the
// context's error, and once the walk or the first check is done no more
// than the checks already in flight (one per worker) are made.
func TestAuditStopsAtTheFirstProgressTick(t *testing.T) {
	const total = 5000
	var w sliceWalker
	for i := range total {
		w = append(w, retrieval.Chunk{ID: fmt.Sprint(i), DocPath: fmt.Sprintf("docs/p%d.md", i), URL: fmt.Sprintf("https://book.example/docs/p%d", i)})
	}
	for _, phase := range []string{PhaseWalk, PhaseCheck} {
		t.Run(phase, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var ch countingChecker
			var walked atomic.Int64
			_, err := Audit(ctx, w, AuditOptions{
				Checker: &ch, Concurrency: 4,
				Progress: func(p string, done, _ int) {
					if p == PhaseWalk {
						walked.Store(int64(done))
					}
					if p == phase && done > 0 {
						cancel()
					}
				},
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if n := ch.n.Load(); n > 4 || (phase == PhaseWalk && walked.Load() >= total) {
				t.Fatalf("%d URLs checked and %d chunks walked of %d after the cancel", n, walked.Load(), total)
			}
		})
	}
}

// TestContentIndexStopsWhenCancelled: building a site's text index stops
// at a cancel, keeps nothing, and a later call builds it whole.
func TestContentIndexStopsWhenCancelled(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range 50 {
		fsys[fmt.Sprintf("docs/p%d.md", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("# Page %d\n\nSome words of page number %d for the shingles.\n", i, i))}
	}
	site, err := LoadSite(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if ix, err := site.contentOf(ctx); !errors.Is(err, context.Canceled) || ix != nil || site.content != nil {
		t.Fatalf("cancelled build: index %v, err %v, kept %v", ix, err, site.content != nil)
	}
	ix, err := site.contentOf(t.Context())
	if err != nil || len(ix.pages) != 50 {
		t.Fatalf("build after a cancel: %v pages, err %v", ix, err)
	}
}
