package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/detail"
)

func TestScorePartsText(t *testing.T) {
	for _, tc := range []struct {
		sp   retrieval.ScoreParts
		want string
	}{
		{retrieval.ScoreParts{BM25: 0.8214, BM25Rank: 4, Cosine: 0.108, CosineRank: 9, Title: 1}, "BM25 0.821 (#4) · cosine 0.108 (#9) · title 1.00"},
		{retrieval.ScoreParts{Cosine: 0.2, CosineRank: 1}, "BM25 0.000 · cosine 0.200 (#1) · title 0.00"},
	} {
		if got := detail.ScorePartsText(&tc.sp); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestDetailShowsScoreParts: the detail pane of a hybrid hit shows what
// its score was blended (or, by a rank fusion, fused) from; a plain hit
// has no such row.
func TestDetailShowsScoreParts(t *testing.T) {
	keys := common.DefaultKeyMap()
	st := common.DefaultStyles(true, colorprofile.Ascii)
	for _, tc := range []struct {
		parts *retrieval.ScoreParts
		label string
	}{
		{&retrieval.ScoreParts{BM25: 0.5, BM25Rank: 1, Cosine: 0.25, CosineRank: 2}, "blended"},
		{&retrieval.ScoreParts{BM25: 0.5, BM25Rank: 1, Cosine: 0.25, CosineRank: 2, Ranked: true}, "fused"},
		{nil, ""},
	} {
		p := detail.New(keys, st, map[string]common.LinkStatus{})
		p.SetSize(100, 30)
		p.SetItem(common.Item{Hit: retrieval.Hit{Rank: 1, Score: 0.3, ScoreParts: tc.parts, Chunk: retrieval.Chunk{ID: "a", Text: "text"}}})
		view := ansi.Strip(p.View())
		row := regexp.MustCompile(`(?m)^\S* *(blended|fused) +BM25 0\.500 \(#1\) · cosine 0\.250 \(#2\)`).FindStringSubmatch(view)
		switch {
		case tc.parts == nil && row != nil:
			t.Errorf("a plain hit shows a parts row:\n%s", view)
		case tc.parts != nil && (row == nil || row[1] != tc.label):
			t.Errorf("parts %+v: want the %s row, got %v:\n%s", *tc.parts, tc.label, row, view)
		}
	}
}

// TestDetailShowsArms: the detail pane of a hit from a fused (Qdrant
// hybrid) search shows its place in each arm and in the fusion.
func TestDetailShowsArms(t *testing.T) {
	keys := common.DefaultKeyMap()
	st := common.DefaultStyles(true, colorprofile.Ascii)
	for _, arms := range [][]retrieval.Arm{{{Label: "dense", Vector: "dense", Rank: 3, Score: 0.61}, {Label: "bm25", Vector: "bm25", Rank: 1, Score: 12.4}}, nil} {
		p := detail.New(keys, st, map[string]common.LinkStatus{})
		p.SetSize(100, 30)
		p.SetItem(common.Item{Hit: retrieval.Hit{Rank: 1, Score: 0.833, Arms: arms, Chunk: retrieval.Chunk{ID: "a", Text: "text"}}})
		got := strings.Contains(p.View(), "dense #3 0.610 · bm25 #1 12.400 · fused #1 0.833")
		if got != (arms != nil) {
			t.Errorf("arms %v: row shown %v\n%s", arms, got, p.View())
		}
	}
}
