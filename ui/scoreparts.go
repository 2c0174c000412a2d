package ui

import (
	"fmt"

	"ragscope/retrieval"
)

// scorePartsText shows what a hybrid score was blended from: "BM25 0.821
// (#4) · cosine 0.108 (#9) · title 1.00".
func scorePartsText(sp *retrieval.ScoreParts) string {
	rank := func(r int) string {
		if r == 0 {
			return ""
		}
		return fmt.Sprintf(" (#%d)", r)
	}
	return fmt.Sprintf("BM25 %.3f%s · cosine %.3f%s · title %.2f", sp.BM25, rank(sp.BM25Rank), sp.Cosine, rank(sp.CosineRank), sp.Title)
}
