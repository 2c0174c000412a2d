package eval

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"ragscope/termsafe"
)

// JUnitVerdictName is the name of the testcase that carries the run's
// verdict in a JUnit report: thresholds are judged over the run, not a
// case, and a CI system must see the run fail when a threshold does.
const JUnitVerdictName = "ragscope eval verdict"

// junitCounts are the attributes testsuites and testsuite share.
type junitCounts struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	junitCounts
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	// Skipped marks an unlabelled case: it ran, but has nothing to pass
	// or fail, so CI systems count it apart from the passes.
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes r as a JUnit XML report, the format CI systems read
// (GitHub, GitLab, Jenkins): one testsuite named after the set, one
// testcase per case (classname its category, else the set's name; name
// its id and question; time its latency), and one more,
// JUnitVerdictName, for the run's verdict.
//
// A case that failed a check, or missed where no threshold allows the
// miss, is a <failure> with its reasons; a case that could not run is an
// <error>. A miss a threshold allows passes, its reasons in <system-out>
// (the run passed: CI must not show it red). An unlabelled case has
// nothing to pass or fail by ranking: it passes, its best score and
// whether it is a content gap in <system-out>. A case whose hits the judge
// could not all grade (eval --judge) is an <error>. The verdict testcase fails
// with every reason when the run failed.
func WriteJUnit(w io.Writer, r Report) error {
	set := orDefault(r.Set, "golden set")
	suite := junitSuite{
		junitCounts: junitCounts{Name: reportLine(set), Time: reportSeconds(r.WallMS)},
		Properties: []junitProperty{
			{"backend", reportLine(r.Backend.Backend)},
			{"collection", reportLine(r.Backend.Collection)},
			{"model", reportLine(r.Backend.Model)},
			{"top_k", fmt.Sprint(r.Params.TopK)},
			{"threshold", fmt.Sprintf("%.3f", r.Params.Threshold)},
		},
	}
	if !r.StartedAt.IsZero() {
		suite.Timestamp = r.StartedAt.UTC().Format("2006-01-02T15:04:05")
	}
	for _, c := range r.Cases {
		jc := junitCase{
			Classname: reportLine(orDefault(c.Category, set)),
			Name:      reportLine(c.ID + ": " + clipText(c.Question, 200)),
			Time:      reportSeconds(c.Latency.TotalMS),
		}
		reasons := strings.Join(c.Reasons, "\n")
		switch c.Status {
		case StatusError:
			jc.Error = &junitProblem{Message: reportLine(firstReason(c.Reasons, c.Error)), Type: "error", Text: termsafe.Outbound(reasons)}
			suite.Errors++
		case StatusFail:
			jc.Failure = &junitProblem{Message: reportLine(firstReason(c.Reasons, "failed")), Type: "fail", Text: termsafe.Outbound(reasons)}
			suite.Failures++
		case StatusMiss:
			if rule := allowedBy(c, r); rule != "" {
				jc.SystemOut = termsafe.Outbound("miss allowed by " + rule + ":\n" + reasons)
				break
			}
			jc.Failure = &junitProblem{Message: reportLine(firstReason(c.Reasons, "missed")), Type: "miss", Text: termsafe.Outbound(reasons)}
			suite.Failures++
		}
		if c.Kind == KindUnlabelled && c.Status == StatusPass {
			jc.SystemOut = unlabelledText(c, r.Unlabelled)
			jc.Skipped = &junitSkipped{Message: "unlabelled: no expectation to pass or fail"}
			suite.Skipped++
		}
		if p := judgeProblem(c); p != "" && jc.Failure == nil && jc.Error == nil {
			// The judge was asked and could not grade: not a pass.
			jc.Error = &junitProblem{Message: reportLine(p), Type: "judge", Text: termsafe.Outbound(p)}
			suite.Errors++
		}
		suite.Cases = append(suite.Cases, jc)
	}
	verdict := junitCase{Classname: reportLine(set), Name: JUnitVerdictName, Time: reportSeconds(r.WallMS), SystemOut: termsafe.Outbound(r.Verdict)}
	if !r.Passed {
		verdict.SystemOut = ""
		verdict.Failure = &junitProblem{Message: reportLine(r.Verdict), Type: "verdict", Text: termsafe.Outbound(strings.Join(r.Reasons, "\n"))}
		suite.Failures++
	}
	suite.Cases = append(suite.Cases, verdict)
	suite.Tests = len(suite.Cases)
	counts := suite.junitCounts
	counts.Name = "ragscope eval"
	doc := junitSuites{junitCounts: counts, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	return nil
}

// allowedBy names the threshold that allows the missed case c when that
// threshold holds for the run ("min_hit_at_k 0.80"), else "": a miss
// under a threshold the run fails is not allowed.
func allowedBy(c CaseResult, r Report) string {
	rule := missRule(c, r.Thresholds)
	th, s := r.Thresholds, r.Summary
	holds := func(min *float64, v float64) bool { return min != nil && v >= *min-1e-9 }
	switch {
	case rule == "":
	case c.Kind == KindRanking && !c.HitAtK:
		if (th.MinHitAtK != nil && holds(th.MinHitAtK, s.HitAtK)) || (th.MinHitAtK == nil && holds(th.MinMRR, s.MRR)) {
			return rule
		}
	case s.KeywordCoverage != nil && holds(th.MinKeywordCoverage, *s.KeywordCoverage):
		return rule
	}
	return ""
}

// unlabelledText says what an unlabelled case showed: its best score and
// whether it is a content gap.
func unlabelledText(c CaseResult, u *UnlabelledReport) string {
	h, ok := c.BestHit()
	if !ok {
		return "unlabelled (no expectation): nothing retrieved, a content gap"
	}
	s := fmt.Sprintf("unlabelled (no expectation): best score %.3f, %s", h.Score, h.Name())
	if u != nil && u.Threshold != nil && h.Score < *u.Threshold {
		s += fmt.Sprintf("; below the threshold %.2f: a content gap", *u.Threshold)
	}
	return termsafe.Outbound(s)
}

func reportSeconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

func reportLine(s string) string { return termsafe.Line(s) }

func orDefault(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return s
}

func firstReason(list []string, alt string) string {
	if len(list) > 0 {
		return list[0]
	}
	return alt
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
