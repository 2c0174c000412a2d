package present

import (
	"strings"
	"testing"

	"ragscope/retrieval"
)

// Sources are numbered in context order (a page's chunks in reading
// order); the context people read names each source's rank beside it,
// while the model's context stays as Ground wrote it.
func TestRankedContext(t *testing.T) {
	chunk := func(id, doc, section string, idx int) retrieval.Chunk {
		return retrieval.Chunk{ID: id, DocPath: doc, Title: "Page " + doc, Section: section, ChunkIndex: retrieval.IntPtr(idx), Text: "Text of " + id + "."}
	}
	hits := []retrieval.Hit{
		{Rank: 1, Score: 0.9, Chunk: chunk("b2", "b.md", "Late", 2)},
		{Rank: 2, Score: 0.8, Chunk: chunk("a0", "a.md", "", 0)},
		{Rank: 3, Score: 0.7, Chunk: chunk("b0", "b.md", "Early", 0)},
	}
	res := retrieval.Result{Mode: retrieval.ModeNormal, Hits: hits, Grounded: retrieval.Ground(hits)}
	got := RankedContext(res)
	for _, want := range []string{
		"[Source 1: Page b.md - Early] (rank #3)\nText of b0.",
		"[Source 2: Page b.md - Late] (rank #1)\nText of b2.",
		"[Source 3: Page a.md] (rank #2)\nText of a0.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(res.Grounded.Context, "(rank #") {
		t.Errorf("the model's context carries the ranks:\n%s", res.Grounded.Context)
	}
	if strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(got, " (rank #1)", ""), " (rank #2)", ""), " (rank #3)", "") != res.Grounded.Context {
		t.Errorf("beside the ranks the text differs from the model's:\n%s\n---\n%s", got, res.Grounded.Context)
	}
	// A selection, a refusal, or a context the hits do not give: as it is.
	sel := retrieval.Result{Mode: retrieval.ModeSelectedText, Hits: hits[:1], Grounded: retrieval.Grounded{Sufficient: true, Context: "selected words"}}
	other := res
	other.Grounded.Context = "[Source 1: something else]\n"
	for _, r := range []retrieval.Result{sel, other, {Mode: retrieval.ModeNormal, Grounded: retrieval.Ground(nil)}} {
		if got := RankedContext(r); got != r.Grounded.Context {
			t.Errorf("changed %q to %q", r.Grounded.Context, got)
		}
	}
}
