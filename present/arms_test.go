package present

import (
	"encoding/json"
	"strings"
	"testing"

	"ragscope/retrieval"
)

func TestArmsText(t *testing.T) {
	arms := []retrieval.Arm{{Label: "dense", Vector: "dense", Rank: 3, Score: 0.6123}, {Label: "bm25", Vector: "bm25", Rank: 1, Score: 12.43}}
	if got, want := Arms(arms, 1, 0.8333), "dense #3 0.612 · bm25 #1 12.430 · fused #1 0.833"; got != want {
		t.Errorf("Arms = %q, want %q", got, want)
	}
	arms[1].Rank, arms[1].Score = 0, 0
	if got, want := Arms(arms, 4, 0.2), "dense #3 0.612 · bm25 – · fused #4 0.200"; got != want {
		t.Errorf("Arms = %q, want %q", got, want)
	}
	if got, want := ArmRanks(arms), "dense #3 · bm25 –"; got != want {
		t.Errorf("ArmRanks = %q, want %q", got, want)
	}
	if Arms(nil, 1, 1) != "" || ArmRanks(nil) != "" {
		t.Error("a search that was not fused shows arms")
	}
	arms[0].Label = "de\x1b[2Jnse"
	if got := Arms(arms, 4, 0.2); strings.Contains(got, "\x1b") {
		t.Errorf("control sequence kept: %q", got)
	}
}

func TestArmsJSONNullRank(t *testing.T) {
	b, err := json.Marshal(ArmsJSON([]retrieval.Arm{{Vector: "dense", Rank: 2, Score: 0.5}, {Vector: "bm25"}}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `[{"vector":"dense","rank":2,"score":0.5},{"vector":"bm25","rank":null,"score":null}]`; got != want {
		t.Errorf("ArmsJSON = %s, want %s", got, want)
	}
	if ArmsJSON(nil) != nil {
		t.Error("no arms must stay nil (omitted)")
	}
}
