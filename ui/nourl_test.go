package ui

import (
	"context"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// noURLRetriever answers as fakeRetriever with hits that have neither a
// URL nor a doc path, so none has a citation URL.
type noURLRetriever struct{ fakeRetriever }

func (r *noURLRetriever) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	res, err := r.fakeRetriever.Retrieve(ctx, q)
	for i := range res.Hits {
		res.Hits[i].Chunk.DocPath, res.Hits[i].Chunk.URL = "", ""
		res.Hits[i].Citation = retrieval.Citation{Title: res.Hits[i].Chunk.Title, Source: "none"}
	}
	return res, err
}

// A selected result without a citation URL is not "no result selected":
// y and o say the result has no URL, and why.
func TestCopyURLOfAResultWithoutOne(t *testing.T) {
	opts, copied := testOptions(nil)
	opts.Retriever = &noURLRetriever{}
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	if _, ok := m.results.Selected(); !ok {
		t.Fatal("no result selected")
	}
	for _, k := range []string{"y", "o"} {
		m = feed(t, m, keyRunes(k))
		st := m.Status()
		if len(*copied) != 0 || strings.Contains(st, "select a result first") || !strings.Contains(st, "this result has none") {
			t.Errorf("%s: copied %q, status %q", k, *copied, st)
		}
	}
}

// The context pane shows each source's rank beside its marker; Y copies
// the context as the model gets it, without them.
func TestContextPaneShowsSourceRanks(t *testing.T) {
	opts, copied := testOptions(&fakeRetriever{})
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("c"))
	v := screen(m)
	if !strings.Contains(v, "[Source 1: Nodes and Topics - Overview] (rank #1)") || !strings.Contains(v, "Each source's (rank #M) is its rank") {
		t.Fatalf("context pane:\n%s", v)
	}
	feed(t, m, keyRunes("Y"))
	if len(*copied) != 1 || strings.Contains((*copied)[0], "(rank #") || !strings.Contains((*copied)[0], "[Source 1: Nodes and Topics - Overview]\n") {
		t.Fatalf("copied %q", *copied)
	}
}
