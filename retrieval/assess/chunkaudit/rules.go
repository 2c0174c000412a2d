package chunkaudit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Metric is a name a --fail-on rule can test, with what it counts.
type Metric struct {
	Name, Help string
}

// Metrics returns the metrics a rule can test, in display order.
func Metrics() []Metric {
	return []Metric{
		{"over-limit", "chunks longer than the model's input"},
		{"over-limit-percent", "over-limit chunks as a percentage of all chunks"},
		{"unseen-percent", "percentage of all tokens past the model's input"},
		{"tiny", "tiny chunks (heading only or under the tiny size)"},
		{"empty", "chunks with no text"},
		{"duplicates", "chunks whose text repeats another's exactly"},
		{"near-duplicates", "chunks whose text nearly repeats another's"},
		{"pages-without-chunks", "site pages no chunk comes from (with a site)"},
		{"headings-without-chunks", "headings no chunk covers on pages that have chunks (with a site)"},
	}
}

func knownMetric(name string) bool {
	for _, m := range Metrics() {
		if m.Name == name {
			return true
		}
	}
	return false
}

// Rule is one failure condition, e.g. over-limit>0: the audit fails when
// the metric compares true against the value.
type Rule struct {
	Metric string
	Op     string
	Value  float64
}

func (r Rule) String() string {
	return r.Metric + r.Op + strconv.FormatFloat(r.Value, 'f', -1, 64)
}

// ParseRules parses comma-separated rules such as "over-limit>0,duplicates>0"
// (operators >, >=, <, <=, =).
func ParseRules(s string) ([]Rule, error) {
	var out []Rule
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		i := strings.IndexAny(part, "<>=")
		if i <= 0 {
			return nil, fmt.Errorf("rule %q: write METRIC>VALUE, e.g. over-limit>0 (metrics: %s)", part, metricNames())
		}
		metric, rest := strings.TrimSpace(part[:i]), part[i:]
		op := rest[:1]
		if len(rest) > 1 && rest[1] == '=' {
			op = rest[:2]
		}
		if op == "==" {
			op = "="
		}
		if !knownMetric(metric) {
			return nil, fmt.Errorf("rule %q: unknown metric %q (metrics: %s)", part, metric, metricNames())
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest[len(op):]), 64)
		if op == "=" && strings.HasPrefix(rest, "==") {
			v, err = strconv.ParseFloat(strings.TrimSpace(rest[2:]), 64)
		}
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("rule %q: the value must be a finite number, e.g. duplicates>0", part)
		}
		out = append(out, Rule{Metric: metric, Op: op, Value: v})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rule given: write METRIC>VALUE, e.g. over-limit>0")
	}
	return out, nil
}

func metricNames() string {
	var names []string
	for _, m := range Metrics() {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

// Value returns the report's value of metric.
func (r *Report) Value(metric string) float64 {
	switch metric {
	case "over-limit":
		return float64(r.OverLimit.Chunks)
	case "over-limit-percent":
		return r.OverLimit.Percent
	case "unseen-percent":
		return r.OverLimit.UnseenPercent
	case "tiny":
		return float64(len(r.Tiny))
	case "empty":
		return float64(len(r.Empty))
	case "duplicates":
		return float64(len(r.Duplicates))
	case "near-duplicates":
		return float64(len(r.NearDuplicates))
	case "pages-without-chunks":
		if r.Coverage != nil {
			return float64(len(r.Coverage.PagesWithoutChunks))
		}
	case "headings-without-chunks":
		if r.Coverage != nil {
			return float64(len(r.Coverage.HeadingsWithoutChunks))
		}
	}
	return 0
}

// Broken returns the rules the report breaks, each with its value
// ("over-limit>0 (is 3)").
func (r *Report) Broken(rules []Rule) []string {
	var out []string
	for _, ru := range rules {
		v := r.Value(ru.Metric)
		var hit bool
		switch ru.Op {
		case ">":
			hit = v > ru.Value
		case ">=":
			hit = v >= ru.Value
		case "<":
			hit = v < ru.Value
		case "<=":
			hit = v <= ru.Value
		case "=":
			hit = v == ru.Value
		}
		if hit {
			out = append(out, fmt.Sprintf("%s (is %s)", ru, strconv.FormatFloat(v, 'f', -1, 64)))
		}
	}
	return out
}
