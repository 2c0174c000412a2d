package evalview

import (
	"strconv"
	"strings"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
)

// Settings are the explorer's settings a golden-set run searches
// with, so the eval view scores what the explorer shows.
type Settings struct {
	// SearchMode is the explorer's local search mode ("" on a backend
	// without modes).
	SearchMode string
	// TopK is the top_k of every case that sets none.
	TopK int
	// Threshold is the score threshold of every query.
	Threshold float64
	// Rerank reranks every normal-mode case with RerankModel when On.
	Rerank      retrieval.RerankOptions
	RerankModel string
}

// Text is the settings as the eval view's title names them.
func (s Settings) Text() string {
	var parts []string
	if s.SearchMode != "" {
		parts = append(parts, "searched "+termsafe.Line(s.SearchMode))
	}
	parts = append(parts, "top_k "+strconv.Itoa(s.TopK), "threshold "+present.Score(s.Threshold, 2))
	if s.Rerank.On {
		parts = append(parts, "rerank "+termsafe.Line(s.RerankModel))
	} else {
		parts = append(parts, "rerank off")
	}
	return strings.Join(parts, " · ")
}
