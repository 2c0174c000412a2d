package present

import (
	"strconv"

	"ragscope/retrieval"
)

// RankedContext is res's grounded context as people read it: each
// "[Source N: …]" marker is followed by the rank of its hit in the
// results, "(rank #M)", since sources are numbered in context order (a
// page's chunks together, in reading order), not by rank. The model gets
// the context without them (res.Grounded.Context). A context that is not
// the one res's hits give (selected text, a refusal) is returned as it is.
func RankedContext(res retrieval.Result) string {
	ctx := res.Grounded.Context
	if res.Mode == retrieval.ModeSelectedText || !res.Grounded.Sufficient || len(res.Hits) == 0 {
		return ctx
	}
	ordered := retrieval.ContextOrder(res.Hits)
	if retrieval.RenderContext(ordered, retrieval.SourceMarker) != ctx {
		return ctx
	}
	return retrieval.RenderContext(ordered, func(n int, h retrieval.Hit) string {
		return retrieval.SourceMarker(n, h) + " (rank #" + strconv.Itoa(h.Rank) + ")"
	})
}

// RankedContextNote says, under a context shown with RankedContext, that
// the ranks are not part of what the model gets.
const RankedContextNote = "Each source's (rank #M) is its rank in the results, shown here only: the model gets the markers without it."
