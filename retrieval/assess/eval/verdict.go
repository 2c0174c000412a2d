package eval

import (
	"fmt"
	"strings"
)

// Judge applies th and the case checks to r: it sets r.Passed, r.Reasons
// and r.Verdict. The gate is strict by default: a missed case fails the run
// unless a threshold covering its kind of miss is set (min_hit_at_k or
// min_mrr for a ranking miss, min_keyword_coverage for missing keywords),
// and then the threshold decides. Aggregate thresholds over ranking cases
// are skipped when the run has none.
func Judge(r *Report, th Thresholds) {
	var reasons []string
	for _, c := range r.Cases {
		if c.Status == StatusFail || c.Status == StatusError {
			reasons = append(reasons, fmt.Sprintf("case %s: %s", c.ID, strings.Join(c.Reasons, "; ")))
		}
	}
	allowed, rules, why := judgeMisses(r.Cases, th)
	if why != "" {
		reasons = append(reasons, why)
	}
	reasons = append(reasons, thresholdReasons(r, th)...)
	r.Thresholds = th
	r.Reasons = reasons
	if r.Reasons == nil {
		r.Reasons = []string{}
	}
	r.Passed = len(reasons) == 0
	r.Verdict = verdict(r, allowed, rules)
}

// judgeMisses sorts the misses by the threshold that allows each: the
// count per rule, the rules in order of first use, and the reason to
// fail when some miss no threshold allows ("" when none).
func judgeMisses(cases []CaseResult, th Thresholds) (map[string]int, []string, string) {
	allowed := map[string]int{}
	var rules []string
	var unallowed []CaseResult
	for _, c := range cases {
		if c.Status != StatusMiss {
			continue
		}
		rule := missRule(c, th)
		if rule == "" {
			unallowed = append(unallowed, c)
			continue
		}
		if allowed[rule] == 0 {
			rules = append(rules, rule)
		}
		allowed[rule]++
	}
	n := len(unallowed)
	if n == 0 {
		return allowed, rules, ""
	}
	ids := idList(unallowed, func(CaseResult) bool { return true })
	what := "no thresholds are set"
	if th != (Thresholds{}) {
		what = "no threshold allows it (set min_hit_at_k or min_mrr for ranking misses, min_keyword_coverage for missing keywords)"
	}
	return allowed, rules, fmt.Sprintf("%d %s missed and %s: %s", n, plural(n, "case", "cases"), what, ids)
}

// thresholdReasons are the run's figures that break a threshold: hit@k,
// MRR, keyword coverage, the judge's shortfall and p95 latency.
func thresholdReasons(r *Report, th Thresholds) []string {
	var reasons []string
	s := r.Summary
	if th.MinHitAtK != nil && s.RankingCases > 0 && s.HitAtK < *th.MinHitAtK-1e-9 {
		reasons = append(reasons, fmt.Sprintf("hit@k %.3f is below the minimum %.3f (missed: %s)",
			s.HitAtK, *th.MinHitAtK, idList(r.Cases, func(c CaseResult) bool { return c.Kind == KindRanking && !c.HitAtK })))
	}
	if th.MinMRR != nil && s.RankingCases > 0 && s.MRR < *th.MinMRR-1e-9 {
		reasons = append(reasons, fmt.Sprintf("MRR %.3f is below the minimum %.3f (rank > 1: %s)",
			s.MRR, *th.MinMRR, idList(r.Cases, func(c CaseResult) bool { return c.Kind == KindRanking && !c.HitAt1 })))
	}
	if th.MinKeywordCoverage != nil && s.KeywordCoverage != nil && *s.KeywordCoverage < *th.MinKeywordCoverage-1e-9 {
		reasons = append(reasons, fmt.Sprintf("keyword coverage %.3f is below the minimum %.3f (missing keywords: %s)",
			*s.KeywordCoverage, *th.MinKeywordCoverage, idList(r.Cases, func(c CaseResult) bool { return len(c.MissingKeywords) > 0 })))
	}
	if why := r.Judging.Shortfall(r.Cases); why != "" {
		reasons = append(reasons, why)
	}
	p95, p95Cases, of := s.Latency.P95MS, s.Latency.Cases, "the batched run"
	if ls := r.LatencySample; ls != nil && ls.Cases > 0 {
		p95, p95Cases, of = ls.P95MS, ls.Cases, fmt.Sprintf("%d %s run singly", ls.Cases, plural(ls.Cases, "case", "cases"))
	}
	if th.MaxP95MS != nil && p95Cases > 0 && p95 > *th.MaxP95MS {
		reasons = append(reasons, fmt.Sprintf("p95 latency %.1f ms (%s) is above the maximum %.1f ms", p95, of, *th.MaxP95MS))
	}
	return reasons
}

// verdict is the run's one-line verdict: its first reason to fail, else
// the misses allowed, else what passed.
func verdict(r *Report, allowed map[string]int, rules []string) string {
	s := r.Summary
	switch {
	case !r.Passed:
		v := r.Reasons[0]
		if n := len(r.Reasons) - 1; n > 0 {
			v += fmt.Sprintf(" (and %d more %s)", n, plural(n, "reason", "reasons"))
		}
		return v
	case len(rules) > 0:
		parts := make([]string, len(rules))
		for i, rule := range rules {
			parts[i] = fmt.Sprintf("%d %s allowed by %s", allowed[rule], plural(allowed[rule], "miss", "misses"), rule)
		}
		return strings.Join(parts, "; ")
	case s.Unlabelled == len(r.Cases):
		return fmt.Sprintf("%d unlabelled %s ran; none has an expectation to pass or fail", s.Unlabelled, plural(s.Unlabelled, "case", "cases"))
	case s.Unlabelled > 0:
		n := len(r.Cases) - s.Unlabelled
		return fmt.Sprintf("all %d labelled %s passed; %d unlabelled ran without a check", n, plural(n, "case", "cases"), s.Unlabelled)
	default:
		return fmt.Sprintf("all %d %s passed", len(r.Cases), plural(len(r.Cases), "case", "cases"))
	}
}

// missRule names the threshold that allows the missed case c ("min_hit_at_k
// 0.80"), or "" when none does.
func missRule(c CaseResult, th Thresholds) string {
	if c.Kind == KindRanking && !c.HitAtK {
		switch {
		case th.MinHitAtK != nil:
			return fmt.Sprintf("min_hit_at_k %.2f", *th.MinHitAtK)
		case th.MinMRR != nil:
			return fmt.Sprintf("min_mrr %.2f", *th.MinMRR)
		}
		return ""
	}
	if len(c.MissingKeywords) > 0 && th.MinKeywordCoverage != nil {
		return fmt.Sprintf("min_keyword_coverage %.2f", *th.MinKeywordCoverage)
	}
	return ""
}

// idList names the cases that match, at most 12.
func idList(cs []CaseResult, match func(CaseResult) bool) string {
	var ids []string
	n := 0
	for _, c := range cs {
		if match(c) {
			n++
			if len(ids) < 12 {
				ids = append(ids, c.ID)
			}
		}
	}
	if n == 0 {
		return "none"
	}
	s := strings.Join(ids, ", ")
	if n > len(ids) {
		s += fmt.Sprintf(" and %d more", n-len(ids))
	}
	return s
}
