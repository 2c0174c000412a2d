package present

import (
	"fmt"
	"strings"

	"ragscope/retrieval"
	"ragscope/termsafe"
)

// ArmJSON is a hit's place in one arm of a fused (hybrid) search, as
// --json shows it: the collection's vector name, the rank in the arm
// alone (from 1) and its score there; rank and score are null when the
// arm, queried to its prefetch limit, did not return the hit.
type ArmJSON struct {
	Vector string   `json:"vector"`
	Rank   *int     `json:"rank"`
	Score  *float64 `json:"score"`
}

// ArmsJSON is arms for --json (nil when the search was not fused).
func ArmsJSON(arms []retrieval.Arm) []ArmJSON {
	if arms == nil {
		return nil
	}
	out := make([]ArmJSON, len(arms))
	for i, a := range arms {
		out[i] = ArmJSON{Vector: a.Vector}
		if a.Rank > 0 {
			rank, score := a.Rank, a.Score
			out[i].Rank, out[i].Score = &rank, &score
		}
	}
	return out
}

// Arms is a hit's place in each arm and in the fusion, e.g.
// "dense #3 0.612 · bm25 #1 12.400 · fused #1 0.833", each score with
// three decimals as the results list shows them; an arm that did not
// return the hit shows "bm25 –". "" when the search was not fused.
func Arms(arms []retrieval.Arm, fusedRank int, fusedScore float64) string {
	if len(arms) == 0 {
		return ""
	}
	return armsText(arms, true) + fmt.Sprintf(" · fused #%d %s", fusedRank, Score(fusedScore, 3))
}

// ArmRanks is Arms without the scores and the fusion, for a row that
// shows the fused rank and score apart: "dense #3 · bm25 #1", "bm25 –"
// for an arm that did not return the hit; "" when the search was not
// fused.
func ArmRanks(arms []retrieval.Arm) string { return armsText(arms, false) }

// armsText joins each arm's label and rank, and its score when
// withScore.
func armsText(arms []retrieval.Arm, withScore bool) string {
	parts := make([]string, 0, len(arms))
	for _, a := range arms {
		label := termsafe.Line(a.Label)
		switch {
		case a.Rank == 0:
			parts = append(parts, label+" –")
		case withScore:
			parts = append(parts, fmt.Sprintf("%s #%d %s", label, a.Rank, Score(a.Score, 3)))
		default:
			parts = append(parts, fmt.Sprintf("%s #%d", label, a.Rank))
		}
	}
	return strings.Join(parts, " · ")
}

// Vector describes one vector of a collection for stats: "dense: dense
// 1024 cosine" or "bm25: sparse, idf modifier, qdrant/bm25", with
// "(searched)" on the ones ragscope searches.
func Vector(v retrieval.VectorInfo) string {
	name := termsafe.Line(v.Name)
	if name == "" {
		name = "(unnamed)"
	}
	var s string
	if v.Kind == "sparse" {
		s = fmt.Sprintf("%s: sparse, %s modifier", name, termsafe.Line(v.Modifier))
		if v.Model != "" {
			s += ", " + termsafe.Line(v.Model)
		}
	} else {
		s = fmt.Sprintf("%s: dense %d %s", name, v.Size, termsafe.Line(v.Distance))
	}
	if v.Used {
		s += " (searched)"
	}
	return s
}
