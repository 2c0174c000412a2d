package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
)

// BenchmarkViewSplit20x20 draws the split view with 20 hits a side (B
// ranks A's sources in reverse, half of them only in one setup) at
// 200x60. Budget: 2 ms (issue 30).
func BenchmarkViewSplit20x20(b *testing.B) {
	hits := func(from int, reverse bool) retrieval.Result {
		res := retrieval.Result{Question: "q", Mode: retrieval.ModeNormal}
		for i := range 20 {
			n := from + i
			if reverse {
				n = from + 19 - i
			}
			c := retrieval.Chunk{ID: fmt.Sprintf("c%03d", n), Title: fmt.Sprintf("Page %d", n), Section: "Section", DocPath: fmt.Sprintf("docs/m/p%d.md", n), Text: fakeText(n, "topic")}
			res.Hits = append(res.Hits, retrieval.Hit{Rank: i + 1, Score: 0.9 - float64(i)/50, Chunk: c})
		}
		return res
	}
	a, bres := hits(0, false), hits(10, true)
	opts, _ := testOptions(&fakeRetriever{})
	opts.Defaults = retrieval.Query{TopK: 20}
	opts.Compare = CompareSetup{Name: "hybrid", Vs: "bm25", Retrieve: func(context.Context, string, string) (retrieval.Result, error) { return bres, nil }}
	m := sized(b, opts, 200, 60)
	m.seq, m.running = 1, true
	m = feed(b, m, resultMsg{Seq: 1, Query: retrieval.Query{Question: "q", TopK: 20}, Result: a})
	m = feed(b, m, keyType(tea.KeyEsc), keyRunes("V"))
	v := m.View().Content
	if !strings.Contains(v, "B · bm25 · 20 hits") || !strings.Contains(v, "only in B") || !strings.Contains(v, "↑") {
		b.Fatalf("the split is not on screen: %q\n%s", m.Status(), screen(m))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = m.View()
	}
}
