package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
)

// zwjRetriever returns chunks whose text, title and section hold
// zero-width joiner sequences and emoji presentation selectors.
type zwjRetriever struct{}

func (zwjRetriever) Retrieve(_ context.Context, q retrieval.Query) (retrieval.Result, error) {
	var hits []retrieval.Hit
	for i, s := range []string{"👩\u200d💻 coder", "a\u200db family 👨\u200d👩\u200d👧", "❤\ufe0f heart ☺\ufe0f"} {
		c := retrieval.Chunk{ID: "z" + s, Text: "## " + s + "\n\nBody " + s + " text " + s + ".", Title: "T " + s, Section: s, DocPath: "docs/z.md"}
		hits = append(hits, retrieval.Hit{Rank: i + 1, Score: 0.9, Chunk: c, Citation: retrieval.Citation{URL: "https://x.org/z#" + s, Source: "payload", Title: c.Title, Section: s}})
	}
	res := retrieval.Result{Question: q.Question, Mode: retrieval.ModeNormal, Hits: hits, Dropped: []retrieval.DroppedHit{}, Params: retrieval.Params{TopK: q.TopK}}
	res.Grounded = retrieval.Ground(res.Hits)
	return res, nil
}

// A ZWJ in chunk text does not shift the panes' borders: every line of
// the screen is as wide as the terminal both to the width library and to a
// wcwidth terminal (issue 25, point 6).
func TestZWJKeepsBordersAligned(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Retriever = zwjRetriever{}
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "emoji")
	views := map[string]string{"results": screen(m)}
	m = feed(t, m, keyRunes("c"))
	views["context"] = screen(m)
	for name, v := range views {
		for i, line := range strings.Split(v, "\n") {
			if g, wc := ansi.StringWidth(line), ansi.StringWidthWc(line); g != 120 || wc != 120 {
				t.Errorf("%s line %d: %d cells (wcwidth %d), want 120: %q", name, i, g, wc, line)
			}
		}
	}
}
