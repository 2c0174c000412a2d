package ui

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/settings"
	"ragscope/ui/turns"
)

func lipglossWidth(s string) int { return lipgloss.Width(s) }

func TestScoreBar(t *testing.T) {
	tests := []struct {
		score       float64
		width       int
		full, empty string
	}{
		{0, 4, "", "░░░░"},
		{1, 4, "████", ""},
		{0.5, 10, "█████", "░░░░░"},
		{0.349, 10, "███", "░░░░░░░"},
		{0.35, 10, "████", "░░░░░░"},
		{-0.2, 3, "", "░░░"},
		{1.7, 3, "███", ""},
		{0.5, 0, "", ""},
	}
	for _, tt := range tests {
		full, empty := common.ScoreBar(tt.score, tt.width)
		if full != tt.full || empty != tt.empty {
			t.Errorf("scoreBar(%v, %d) = %q %q, want %q %q", tt.score, tt.width, full, empty, tt.full, tt.empty)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer title", 8, "a longe…"},
		{"你好世界", 5, "你好…"},
		{"anything", 0, ""},
	}
	for _, tt := range tests {
		if got := common.Truncate(tt.in, tt.width); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestLabels(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"duplicate", common.DropLabel(retrieval.DroppedHit{Reason: retrieval.ReasonDuplicate, DuplicateOf: 2}, 0.35), "duplicate of #2"},
		{"below", common.DropLabel(retrieval.DroppedHit{Reason: retrieval.ReasonBelowThreshold}, 0.35), "below 0.35"},
		{"link ok", common.LinkLabel(common.LinkStatus{State: common.LinkOK}), "✓ link ok"},
		{"anchor", common.LinkLabel(common.LinkStatus{State: common.LinkAnchorMissing}), "✗ anchor missing"},
		{"odd state", common.LinkLabel(common.LinkStatus{State: "weird"}), "? link unknown"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{retrieval.ErrEmptyQuestion, "Query cannot be empty. Type a question."},
		{fmt.Errorf("%w: no Cohere API key: set COHERE_API_KEY", retrieval.ErrConfig), "Configuration: no Cohere API key: set COHERE_API_KEY"},
		{fmt.Errorf("search: %w", context.DeadlineExceeded), "Timed out: the backend did not answer in time. Try again, or raise --timeout."},
		{errors.New("boom"), "Error: boom"},
	}
	for _, tt := range tests {
		if got := common.ErrorText(tt.err); got != tt.want {
			t.Errorf("errorText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestCompareResults(t *testing.T) {
	hit := func(id string, rank int, score float64) retrieval.Hit {
		return retrieval.Hit{Rank: rank, Score: score, Chunk: retrieval.Chunk{ID: id, Title: id}}
	}
	old := retrieval.Result{Hits: []retrieval.Hit{hit("a", 1, 0.9), hit("b", 2, 0.8), hit("c", 3, 0.7)}}
	cur := retrieval.Result{Hits: []retrieval.Hit{hit("b", 1, 0.85), hit("a", 2, 0.8), hit("d", 3, 0.6)}}
	rows := turns.CompareResults(old, cur)
	var got []string
	for _, r := range rows {
		got = append(got, r.Title+":"+r.Change())
	}
	want := "b:↑1 a:↓1 d:new c:gone"
	if fmt.Sprint(got) != "["+want+"]" {
		t.Fatalf("compare = %v, want %s", got, want)
	}
	same := turns.CompareResults(old, old)
	for _, r := range same {
		if r.Change() != "=" {
			t.Fatalf("same result: %+v", r)
		}
	}
	if d := turns.ParamsDiff(retrieval.Query{TopK: 5}, retrieval.Query{TopK: 10, Threshold: 0.3}); d != "top_k 5→10 · threshold 0.00→0.30" {
		t.Fatalf("paramsDiff = %q", d)
	}
}

func TestTopKStep(t *testing.T) {
	k, seq := 1, []int{}
	for i := 0; i < 18; i++ {
		k = settings.TopKStep(k, true)
		seq = append(seq, k)
	}
	if fmt.Sprint(seq) != "[2 3 4 5 6 7 8 9 10 15 20 30 40 50 60 70 80 90]" {
		t.Fatalf("up = %v", seq)
	}
	if settings.TopKStep(100, true) != 100 || settings.TopKStep(1, false) != 1 || settings.TopKStep(30, false) != 20 || settings.TopKStep(15, false) != 10 {
		t.Fatal("bounds or steps down")
	}
}

// ink paints one line as Render does.
func TestInkPaintsAsRender(t *testing.T) {
	st := common.DefaultStyles(true, colorprofile.TrueColor)
	for _, style := range []lipgloss.Style{st.Label, st.Value, st.Highlight, lipgloss.NewStyle()} {
		for _, s := range []string{"rank", "a b · ✓ c"} {
			if got, want := common.InkOf(style).Paint(s), style.Render(s); got != want {
				t.Errorf("paint(%q) = %q, Render = %q", s, got, want)
			}
		}
	}
}

// box draws the same frame as Lip Gloss, clipping and padding each line.
func TestBoxMatchesLipGloss(t *testing.T) {
	st := common.DefaultStyles(true, colorprofile.TrueColor)
	content := "title\nline that is far too long for the box\n\nlast"
	for _, size := range [][2]int{{20, 6}, {20, 4}, {12, 3}} {
		w, h := size[0], size[1]
		iw, ih := common.InnerSize(st.Pane, w, h)
		want := st.Pane.Width(w).Height(h).MaxWidth(w).MaxHeight(h).Render(common.FitLines(content, iw, ih))
		if got := common.Box(st.Pane, w, h, content); ansi.Strip(got) != ansi.Strip(want) {
			t.Errorf("%dx%d:\n%s\nwant\n%s", w, h, got, want)
		}
	}
}
