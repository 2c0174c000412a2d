package eval

import (
	"math"
	"sort"
)

// CalibrationBins is the number of 0.1-wide score bins of the histogram.
const CalibrationBins = 10

// ScoreSample is one retrieved hit's score and whether it was relevant.
type ScoreSample struct {
	Score    float64
	Relevant bool
}

// Bin is one histogram bin: scores in [Lo, Hi) (the last bin includes 1;
// scores below 0 fall in the first, above 1 in the last).
type Bin struct {
	Lo          float64 `json:"lo"`
	Hi          float64 `json:"hi"`
	Relevant    int     `json:"relevant"`
	NonRelevant int     `json:"non_relevant"`
}

// Calibration describes how scores separate relevant from non-relevant
// hits, and suggests a threshold.
type Calibration struct {
	// Method is how Suggested was chosen ("youden_j").
	Method      string `json:"method"`
	Relevant    int    `json:"relevant"`
	NonRelevant int    `json:"non_relevant"`
	Bins        []Bin  `json:"bins"`
	// Suggested is nil when there are not both relevant and non-relevant
	// hits to separate.
	Suggested *float64 `json:"suggested_threshold"`
	// TPR and FPR are the fractions of relevant and non-relevant hits that
	// score at or above Suggested; J = TPR - FPR.
	TPR float64 `json:"tpr"`
	FPR float64 `json:"fpr"`
	J   float64 `json:"youden_j"`
	// Note explains a missing suggestion.
	Note string `json:"note,omitempty"`
}

// CalibrationSamples collects the judged hits of results: every top-k hit
// of ranking cases (including hits the threshold cut), and every hit of
// no-answer cases as non-relevant. Keyword-only and selected-text cases
// carry no relevance judgement and are left out.
func CalibrationSamples(results []CaseResult) []ScoreSample {
	var out []ScoreSample
	for _, c := range results {
		if c.Status == StatusError || (c.Kind != KindRanking && c.Kind != KindNoAnswer) {
			continue
		}
		for _, h := range c.Hits {
			out = append(out, ScoreSample{Score: h.Score, Relevant: c.Kind == KindRanking && h.Relevant})
		}
	}
	return out
}

// Calibrate builds the histogram and suggests the threshold t maximising
// Youden's J = TPR(t) - FPR(t), where a hit is kept when its score >= t.
// Candidates are the observed scores; the suggestion is the midpoint
// between the chosen score and the next lower observed score, so it does
// not sit exactly on a sample. Ties in J go to the lower threshold, which
// keeps more relevant hits.
func Calibrate(samples []ScoreSample) Calibration {
	cal := Calibration{Method: "youden_j", Bins: make([]Bin, CalibrationBins)}
	for i := range cal.Bins {
		cal.Bins[i] = Bin{Lo: round3(float64(i) / CalibrationBins), Hi: round3(float64(i+1) / CalibrationBins)}
	}
	for _, s := range samples {
		b := binOf(s.Score)
		if s.Relevant {
			cal.Relevant++
			cal.Bins[b].Relevant++
		} else {
			cal.NonRelevant++
			cal.Bins[b].NonRelevant++
		}
	}
	if cal.Relevant == 0 || cal.NonRelevant == 0 {
		cal.Note = "need both relevant and non-relevant hits to suggest a threshold"
		return cal
	}
	scores := make([]float64, 0, len(samples))
	for _, s := range samples {
		scores = append(scores, s.Score)
	}
	sort.Float64s(scores)
	distinct := scores[:0:0]
	for i, s := range scores {
		if i == 0 || s != scores[i-1] {
			distinct = append(distinct, s)
		}
	}
	bestJ, bestI := math.Inf(-1), 0
	var bestTPR, bestFPR float64
	for i, t := range distinct { // ascending: ties keep the lower threshold
		var tp, fp int
		for _, s := range samples {
			if s.Score >= t {
				if s.Relevant {
					tp++
				} else {
					fp++
				}
			}
		}
		tpr, fpr := float64(tp)/float64(cal.Relevant), float64(fp)/float64(cal.NonRelevant)
		if j := tpr - fpr; j > bestJ+1e-12 {
			bestJ, bestI, bestTPR, bestFPR = j, i, tpr, fpr
		}
	}
	t := distinct[bestI]
	if bestI > 0 {
		t = (t + distinct[bestI-1]) / 2
	}
	t = round3(t)
	cal.Suggested = &t
	cal.TPR, cal.FPR, cal.J = bestTPR, bestFPR, bestJ
	return cal
}

// binOf is the histogram bin of score: scores below 0 fall in the first
// bin, 1 and above in the last.
func binOf(score float64) int {
	return max(0, min(int(math.Floor(score*CalibrationBins)), CalibrationBins-1))
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
