package common

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/retrieval/assess/judge"
)

// Mark is an author's judgement of a hit (keys m, M, u): what saving
// the turn (S) writes into the golden file.
type Mark int8

// The marks.
const (
	MarkNone Mark = iota
	MarkRelevant
	MarkNotRelevant
)

// Item is one row of the result list: a kept hit, or a hit left out
// (below the threshold or a duplicate) shown greyed.
type Item struct {
	Hit     retrieval.Hit
	Dropped bool
	// Label says why a dropped hit was left out ("duplicate of #2").
	Label string
	// Move is a reranked hit's movement against the store's order, and
	// Stage names that order: "vector", "hybrid" or "BM25"
	// (present.FirstStage).
	Move  *retrieval.Movement
	Stage string
	// Expect marks an expected source (key w): a hit of the results, or,
	// with Pseudo, a row of its own at its real rank saying what cut it.
	Expect *retrieval.Expected
	Pseudo bool
	// Mark is the author's mark of the hit (keys m, M, u).
	Mark Mark
	// Judge is the judge's verdict on the hit (key J; nil: none);
	// Judging says the judge is grading it now.
	Judge   *judge.Judgement
	Judging bool
	// Explain is the row's score taken apart (key X; nil: not asked).
	Explain *explain.Explanation
	// WhatIf, on a Pseudo row, is an edited chunk's would-be rank (key E).
	WhatIf *explain.WhatIf
}

func ItemKey(it Item) string {
	if it.WhatIf != nil {
		return "whatif|" + it.WhatIf.Ref
	}
	if it.Pseudo {
		return "expected|" + it.Hit.Chunk.ID + "|" + it.Expect.Ref
	}
	return strconv.FormatBool(it.Dropped) + "|" + it.Hit.Chunk.ID + "|" + strconv.Itoa(it.Hit.Rank)
}

// MarkHelp is the group of the mark and save keys.
func MarkHelp(k *KeyMap) [][]key.Binding {
	return [][]key.Binding{{k.MarkRelevant, k.MarkNotRelevant, k.MarkClear, k.SaveCase, k.Judge}}
}

// String names the mark as the list and the detail pane show it.
func (k Mark) String() string {
	switch k {
	case MarkRelevant:
		return "✓ relevant"
	case MarkNotRelevant:
		return "✗ not relevant"
	}
	return ""
}

// Matches reports whether it holds q (lower case) in what the list shows
// or in its text.
func (it *Item) Matches(q string) bool {
	c := &it.Hit.Chunk
	for _, s := range []string{present.Title(c), present.Place(c), c.DocPath, it.Hit.Citation.URL, it.Label, c.Text} {
		if strings.Contains(strings.ToLower(s), q) {
			return true
		}
	}
	return false
}

// PickMatch is the index in sorted hits of the next match from cur in
// dir (cur itself when from), wrapping around.
func PickMatch(hits []int, cur, dir int, from bool) int {
	if dir >= 0 {
		for i, h := range hits {
			if h > cur || (from && h == cur) {
				return i
			}
		}
		return 0
	}
	for i := len(hits) - 1; i >= 0; i-- {
		if hits[i] < cur || (from && hits[i] == cur) {
			return i
		}
	}
	return len(hits) - 1
}

// MarkMatches paints every occurrence of q (lower case) in the lines of
// view in reverse video; a line with a match is drawn as plain text, so
// the highlight is visible without colours too.
func MarkMatches(view, q string, st *Styles) string {
	if q == "" {
		return view
	}
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		plain := ansi.Strip(l)
		if strings.Contains(strings.ToLower(plain), q) {
			lines[i] = PaintMatches(plain, q, Ink{}, st.Rows.Match)
		}
	}
	return strings.Join(lines, "\n")
}

// PaintMatches paints s with base and every occurrence of q (lower case)
// with hl. When lower-casing changes the byte length (rare scripts), s is
// painted whole with base.
func PaintMatches(s, q string, base, hl Ink) string {
	lower := strings.ToLower(s)
	if q == "" || len(lower) != len(s) || !strings.Contains(lower, q) {
		return base.Paint(s)
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, q)
		if i < 0 {
			break
		}
		if i > 0 {
			b.WriteString(base.Paint(s[:i]))
		}
		b.WriteString(hl.Paint(s[i : i+len(q)]))
		s, lower = s[i+len(q):], lower[i+len(q):]
	}
	if s != "" {
		b.WriteString(base.Paint(s))
	}
	return b.String()
}

// JudgeState is the judge's verdicts on one turn's hits, kept with the
// turn.
type JudgeState struct {
	// running says a judge run of the turn is in flight.
	Running bool
	// grades are aligned with the turn's Result.Hits (nil until a run
	// ends); byID indexes them by chunk id.
	Grades []judge.Judgement
	ByID   map[string]*judge.Judgement
	Stats  judge.Stats
	Err    error
}
