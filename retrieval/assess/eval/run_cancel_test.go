package eval

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestRunStopsAtTheFirstProgressTick cancels a 1,000-case run, one
// question per embed call and one call at a time, when the first case
// finishes: Run returns the context's error, and the batches still
// waiting for their turn are never sent to the embedder.
func TestRunStopsAtTheFirstProgressTick(t *testing.T) {
	w := newWorld()
	const total = 1000
	var cases []Case
	for i := range total {
		q := fmt.Sprintf("question %d", i)
		w.add(q, chunk("a", qosDoc, "S", "t", 0.5))
		cases = append(cases, Case{ID: q, Question: q, Expect: Expect{DocPaths: []string{qosDoc}}})
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := Run(ctx, w.pipeline(), Set{Cases: cases}, Options{
		BatchSize: 1, EmbedConcurrency: 1,
		Progress: func(int, int) {
			cancel()
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := len(w.embedCalls()); n >= total/10 {
		t.Fatalf("%d embed calls of %d after the cancel", n, total)
	}
}
