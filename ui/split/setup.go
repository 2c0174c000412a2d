package split

import (
	"context"
	"strconv"
	"strings"

	"ragscope/retrieval"
	"ragscope/termsafe"
)

// Setup offers the split view; a zero value leaves the key saying how to
// get a setup to compare with.
type Setup struct {
	// Name names the explorer's own setup (A) in the split's header.
	Name string
	// Setups are the named setups of ragscope.toml that B can be (A's
	// own excluded), for the hint and the settings.
	Setups []string
	// Vs is setup B ("" none: the split says how to choose one).
	Vs string
	// Retrieve runs question through the named setup, with that setup's
	// own settings (top_k, threshold, rerank, search), under ctx.
	Retrieve func(ctx context.Context, setup, question string) (retrieval.Result, error)
}

// Hint says how to get a setup to compare with.
func (c Setup) Hint() string {
	if len(c.Setups) == 0 {
		return "No setup to compare with: the split needs a second named setup. Add a [setups.NAME] table to ragscope.toml and start with ragscope --vs NAME."
	}
	return "No setup to compare with: choose one in the settings (s, compare with) or start with ragscope --vs NAME (setups: " + termsafe.Line(strings.Join(c.Setups, ", ")) + ")."
}

// KeyHelp is the split key's help with vs as setup B ("" none): what it
// compares, or how to get a setup to compare with.
func (c Setup) KeyHelp(vs string) string {
	switch {
	case c.Retrieve != nil && vs != "":
		return "split: A vs setup " + termsafe.Line(vs)
	case len(c.Setups) > 0:
		return "split vs a setup (--vs NAME, or s: compare with)"
	}
	return "split vs a setup (start with --vs NAME)"
}

// Click selects the row at (x, y) of the body and returns its side (0 A,
// 1 B): the side's border and title line come before its rows.
func (v *Model) Click(x, y int) int {
	side := 0
	if x >= v.HalfWidth(0) {
		side = 1
	}
	h := &v.Half[side]
	if row := y - 2; row >= 0 && row < v.PageRows(side)*RowLines {
		if i := h.Offset + row/RowLines; i < len(h.Rows) {
			h.Cursor = i
		}
	}
	return side
}

// RowTexts are the rows of side A then B, each as "rank source mark".
func (v *Model) RowTexts() [2][]string {
	var out [2][]string
	for i := range v.Half {
		for _, r := range v.Half[i].Rows {
			out[i] = append(out[i], strconv.Itoa(r.Hit.Rank)+" "+r.Source+" "+r.Mark)
		}
	}
	return out
}
