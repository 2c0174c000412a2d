package eval

import "sort"

// MetricDelta is one overall metric before and after.
type MetricDelta struct {
	Metric string  `json:"metric"`
	Old    float64 `json:"old"`
	New    float64 `json:"new"`
	Delta  float64 `json:"delta"`
	// HigherIsBetter is false for latencies.
	HigherIsBetter bool `json:"higher_is_better"`
}

// Worse reports whether the metric moved the wrong way. A latency counts
// as worse only when it grew by more than 10% and more than 1 ms, so timer
// noise on fast backends is not flagged.
func (m MetricDelta) Worse() bool {
	if m.HigherIsBetter {
		return m.Delta < -1e-9
	}
	return m.Delta > 1 && m.Delta > 0.1*m.Old
}

// CaseDelta compares one case present in both reports.
type CaseDelta struct {
	ID           string  `json:"id"`
	OldStatus    Status  `json:"old_status"`
	NewStatus    Status  `json:"new_status"`
	OldRank      int     `json:"old_rank"`
	NewRank      int     `json:"new_rank"`
	DeltaRR      float64 `json:"delta_rr"`
	DeltaNDCG    float64 `json:"delta_ndcg"`
	DeltaTotalMS float64 `json:"delta_total_ms"`
	// Regression: the case hit before and misses now (see CaseResult.IsHit).
	Regression bool `json:"regression"`
	// Fixed: the case missed before and hits now.
	Fixed bool `json:"fixed"`
}

// Diff is the comparison of a new report with a baseline.
type Diff struct {
	OldSet     string        `json:"old_set"`
	OldStarted string        `json:"old_started_at"`
	Overall    []MetricDelta `json:"overall"`
	// Cases are the cases in both reports, in the new report's order.
	Cases       []CaseDelta `json:"cases"`
	Regressions []string    `json:"regressions"`
	Fixed       []string    `json:"fixed"`
	// Added are new cases; Removed are baseline cases no longer run.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
}

// Compare compares new with the baseline old, matching cases by id.
func Compare(old, new Report) Diff {
	d := Diff{
		OldSet: old.Set, OldStarted: old.StartedAt.Format("2006-01-02T15:04:05Z07:00"),
		Cases: []CaseDelta{}, Regressions: []string{}, Fixed: []string{}, Added: []string{}, Removed: []string{},
	}
	o, n := old.Summary, new.Summary
	add := func(name string, a, b float64, higher bool) {
		d.Overall = append(d.Overall, MetricDelta{Metric: name, Old: a, New: b, Delta: b - a, HigherIsBetter: higher})
	}
	add("hit@1", o.HitAt1, n.HitAt1, true)
	add("hit@k", o.HitAtK, n.HitAtK, true)
	add("mrr", o.MRR, n.MRR, true)
	add("ndcg@k", o.NDCG, n.NDCG, true)
	add("recall@k", o.Recall, n.Recall, true)
	if o.KeywordCoverage != nil && n.KeywordCoverage != nil {
		add("keyword_coverage", *o.KeywordCoverage, *n.KeywordCoverage, true)
	}
	if o.MetadataCompleteness != nil && n.MetadataCompleteness != nil {
		add("metadata_completeness", *o.MetadataCompleteness, *n.MetadataCompleteness, true)
	}
	add("passed", float64(o.Passed), float64(n.Passed), true)
	add("p50_ms", o.Latency.P50MS, n.Latency.P50MS, false)
	add("p95_ms", o.Latency.P95MS, n.Latency.P95MS, false)

	byID := make(map[string]CaseResult, len(old.Cases))
	for _, c := range old.Cases {
		byID[c.ID] = c
	}
	seen := map[string]bool{}
	for _, nc := range new.Cases {
		seen[nc.ID] = true
		oc, ok := byID[nc.ID]
		if !ok {
			d.Added = append(d.Added, nc.ID)
			continue
		}
		cd := CaseDelta{
			ID: nc.ID, OldStatus: oc.Status, NewStatus: nc.Status,
			OldRank: oc.FirstRelevantRank, NewRank: nc.FirstRelevantRank,
			DeltaRR: nc.ReciprocalRank - oc.ReciprocalRank, DeltaNDCG: nc.NDCG - oc.NDCG,
			DeltaTotalMS: nc.Latency.TotalMS - oc.Latency.TotalMS,
			Regression:   oc.IsHit() && !nc.IsHit(), Fixed: !oc.IsHit() && nc.IsHit(),
		}
		if cd.Regression {
			d.Regressions = append(d.Regressions, nc.ID)
		}
		if cd.Fixed {
			d.Fixed = append(d.Fixed, nc.ID)
		}
		d.Cases = append(d.Cases, cd)
	}
	for _, oc := range old.Cases {
		if !seen[oc.ID] {
			d.Removed = append(d.Removed, oc.ID)
		}
	}
	sort.Strings(d.Removed)
	return d
}
