package eval

import (
	"fmt"
	"sort"
)

// GapListSize is how many of the lowest-scoring unlabelled cases a report
// lists.
const GapListSize = 10

// Where an UnlabelledReport's threshold comes from.
const (
	// GapThresholdRun: the run's score threshold (--threshold or the set's).
	GapThresholdRun = "run"
	// GapThresholdSuggested: the run had none, so the threshold the
	// labelled cases of the same run suggest (Calibration.Suggested).
	GapThresholdSuggested = "suggested"
)

// UnlabelledReport is what a run can tell of its unlabelled cases (no
// expectation, as golden import writes them) without labels: how their
// best scores spread, and the content gaps, the questions whose best hit
// scores below the threshold: nothing in the collection comes close.
type UnlabelledReport struct {
	// Cases is the number of unlabelled cases that ran (errors left out).
	Cases int `json:"cases"`
	// NoHits counts the cases that retrieved nothing at all.
	NoHits int `json:"no_hits"`
	// BestScore is the distribution of each case's best score, kept or
	// cut by the threshold (cases without a hit left out).
	BestScore ScoreDistribution `json:"best_score"`
	// Threshold is the score a best hit must reach (nil: the run had no
	// threshold and its labelled cases suggest none; Gaps then counts only
	// the cases without a hit).
	Threshold *float64 `json:"threshold"`
	// ThresholdSource is GapThresholdRun or GapThresholdSuggested.
	ThresholdSource string `json:"threshold_source,omitempty"`
	// Gaps counts the cases whose best score is below Threshold, or that
	// retrieved nothing: content gaps.
	Gaps int `json:"gaps"`
	// GapShare is Gaps / Cases.
	GapShare float64 `json:"gap_share"`
	// Lowest are the GapListSize cases with the lowest best scores, lowest
	// first (no hit first of all): the top of the content-gap list.
	Lowest []GapCase `json:"lowest"`
}

// ScoreDistribution describes a set of scores: nearest-rank percentiles
// and a histogram of 0.1-wide bins (as Calibration's).
type ScoreDistribution struct {
	Min       float64    `json:"min"`
	P10       float64    `json:"p10"`
	P25       float64    `json:"p25"`
	P50       float64    `json:"p50"`
	P75       float64    `json:"p75"`
	P90       float64    `json:"p90"`
	Max       float64    `json:"max"`
	Histogram []ScoreBin `json:"histogram"`
}

// ScoreBin is one histogram bin: the cases whose score is in [Lo, Hi)
// (the last bin includes 1).
type ScoreBin struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Cases int     `json:"cases"`
}

// GapCase is an unlabelled case and its best hit.
type GapCase struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Category string `json:"category"`
	// BestScore is nil when the case retrieved nothing.
	BestScore *float64 `json:"best_score"`
	// Best names the best hit (HitResult.Name).
	Best string `json:"best,omitempty"`
	// Gap is true when BestScore is below the threshold (or nil).
	Gap bool `json:"gap"`
}

// UnlabelledRan counts the unlabelled cases that ran (status pass): they
// have no expectation to pass or fail, so summaries count them apart from
// the passes.
func UnlabelledRan(cases []CaseResult) int {
	n := 0
	for i := range cases {
		if cases[i].Kind == KindUnlabelled && cases[i].Status == StatusPass {
			n++
		}
	}
	return n
}

// BestHit is the case's best-scoring hit, kept or cut by the threshold
// (false: the case retrieved nothing).
func (c CaseResult) BestHit() (HitResult, bool) {
	var best HitResult
	found := false
	for _, h := range c.Hits {
		if !found || h.Score > best.Score {
			best, found = h, true
		}
	}
	return best, found
}

// Unlabelled reports the unlabelled cases of results (nil when there are
// none). threshold is the run's (0: none), suggested the calibration's
// suggestion, used when the run has none.
func Unlabelled(results []CaseResult, threshold float64, suggested *float64) *UnlabelledReport {
	u := &UnlabelledReport{}
	var scores []float64
	var cases []GapCase
	for _, c := range results {
		if c.Kind != KindUnlabelled || c.Status == StatusError {
			continue
		}
		u.Cases++
		g := GapCase{ID: c.ID, Question: c.Question, Category: c.Category}
		if h, ok := c.BestHit(); ok {
			g.BestScore, g.Best = &h.Score, h.Name()
		}
		if g.BestScore == nil {
			u.NoHits++
		} else {
			scores = append(scores, *g.BestScore)
		}
		cases = append(cases, g)
	}
	if u.Cases == 0 {
		return nil
	}
	switch {
	case threshold > 0:
		t := threshold
		u.Threshold, u.ThresholdSource = &t, GapThresholdRun
	case suggested != nil:
		t := *suggested
		u.Threshold, u.ThresholdSource = &t, GapThresholdSuggested
	}
	for i := range cases {
		g := &cases[i]
		g.Gap = g.BestScore == nil || (u.Threshold != nil && *g.BestScore < *u.Threshold)
		if g.Gap {
			u.Gaps++
		}
	}
	u.GapShare = float64(u.Gaps) / float64(u.Cases)
	u.BestScore = distribution(scores)
	sort.SliceStable(cases, func(i, j int) bool {
		a, b := cases[i].BestScore, cases[j].BestScore
		if a == nil || b == nil {
			return a == nil && b != nil
		}
		return *a < *b
	})
	u.Lowest = cases[:min(len(cases), GapListSize)]
	return u
}

// GapLine is the report's one-line finding: "37 of 400 questions find
// nothing above 0.35 (the run's threshold)".
func (u *UnlabelledReport) GapLine() string {
	if u.Threshold == nil {
		if u.NoHits > 0 {
			return fmt.Sprintf("%d of %d %s nothing; no threshold to count content gaps (give --threshold)", u.NoHits, u.Cases, plural(u.Cases, "question finds", "questions find"))
		}
		return "no threshold to count content gaps: give --threshold (or label a few cases for a suggested one)"
	}
	src := "the run's threshold"
	if u.ThresholdSource == GapThresholdSuggested {
		src = "the threshold the labelled cases suggest"
	}
	return fmt.Sprintf("%d of %d %s nothing above %.2f (%s)", u.Gaps, u.Cases, plural(u.Cases, "question finds", "questions find"), *u.Threshold, src)
}

func distribution(scores []float64) ScoreDistribution {
	d := ScoreDistribution{Histogram: make([]ScoreBin, CalibrationBins)}
	for i := range d.Histogram {
		d.Histogram[i] = ScoreBin{Lo: round3(float64(i) / CalibrationBins), Hi: round3(float64(i+1) / CalibrationBins)}
	}
	if len(scores) == 0 {
		return d
	}
	s := append([]float64(nil), scores...)
	sort.Float64s(s)
	d.Min, d.Max = s[0], s[len(s)-1]
	d.P10, d.P25, d.P50, d.P75, d.P90 = Percentile(s, 10), Percentile(s, 25), Percentile(s, 50), Percentile(s, 75), Percentile(s, 90)
	for _, v := range s {
		d.Histogram[binOf(v)].Cases++
	}
	return d
}
