package cli

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"ragscope/retrieval/assess/eval"
)

// writeUnlabelledText prints what the unlabelled cases show without
// labels: their best-score distribution, the content-gap count and the
// cases with the lowest best scores.
func writeUnlabelledText(w io.Writer, u *eval.UnlabelledReport) {
	if u == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Unlabelled questions (%d; no expectation, so no pass or fail)\n", u.Cases)
	d := u.BestScore
	if u.Cases > u.NoHits {
		fmt.Fprintf(w, "  best score: min %.3f · p10 %.3f · p25 %.3f · p50 %.3f · p75 %.3f · p90 %.3f · max %.3f\n",
			d.Min, d.P10, d.P25, d.P50, d.P75, d.P90, d.Max)
		tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "  best score ≥\t")
		for _, b := range d.Histogram {
			fmt.Fprintf(tw, "%.1f\t", b.Lo)
		}
		fmt.Fprint(tw, "\n  questions\t")
		for _, b := range d.Histogram {
			fmt.Fprintf(tw, "%d\t", b.Cases)
		}
		fmt.Fprintln(tw)
		tw.Flush()
	}
	fmt.Fprintf(w, "  %s\n", cleanLine(u.GapLine()))
	if len(u.Lowest) == 0 {
		return
	}
	fmt.Fprintf(w, "  lowest best scores (%d of %d):\n", len(u.Lowest), u.Cases)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, g := range u.Lowest {
		score, mark := "none", ""
		if g.BestScore != nil {
			score = strconv.FormatFloat(*g.BestScore, 'f', 3, 64)
		}
		if g.Gap {
			mark = "GAP"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t%s\n", clip(g.ID, 24), score, mark, clip(g.Question, 60), clip(g.Best, 50))
	}
	tw.Flush()
}
