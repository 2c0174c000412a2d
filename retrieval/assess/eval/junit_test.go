package eval

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
)

type parsedSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// mixedRun is a run with a passing, a failing, a missed, an errored and
// unlabelled cases (one of them a hostile id).
func mixedRun(t *testing.T, th Thresholds) Report {
	t.Helper()
	w, set := gapWorld()
	w.add("off topic", chunk("g", qosDoc, "S", "ROS", 0.8))
	w.add("missed", chunk("h", simDoc, "S", "sim", 0.7))
	w.add("broken")
	w.searchErr[len(w.answers)-1] = errStore
	set.Cases = append(set.Cases,
		Case{ID: "fail-noanswer", Question: "off topic", Category: "edge", Expect: Expect{NoAnswer: true, MaxScore: f64(0.5)}},
		Case{ID: "miss-page", Question: "missed", Category: "edge", Expect: Expect{DocPaths: []string{"docs/" + qosDoc}}},
		Case{ID: "err\x1b[31m<&>", Question: "broken", Category: "edge", Expect: Expect{Modules: []string{"x"}}},
	)
	th2 := 0.35
	return run(t, w, set, Options{Threshold: &th2, Thresholds: th})
}

func parseJUnit(t *testing.T, rep Report) (parsedSuites, string) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJUnit(&b, rep); err != nil {
		t.Fatal(err)
	}
	var doc parsedSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not valid XML: %v\n%s", err, b.String())
	}
	return doc, b.String()
}

// TestWriteJUnit: one testcase per case plus the verdict; failures carry
// the reasons, a case that could not run is an error, unlabelled cases
// are skipped (neither pass nor fail) with their best score and gap in
// system-out, and hostile text
// leaves no control character in the XML.
func TestWriteJUnit(t *testing.T) {
	rep := mixedRun(t, Thresholds{})
	doc, raw := parseJUnit(t, rep)
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites", len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Name != "gaps" || s.Tests != len(rep.Cases)+1 || doc.Tests != s.Tests {
		t.Errorf("suite %q: %d tests (document %d), want %d", s.Name, s.Tests, doc.Tests, len(rep.Cases)+1)
	}
	// fail-noanswer, miss-page (no threshold allows it) and the verdict.
	if s.Failures != 3 || s.Errors != 1 || doc.Failures != 3 || doc.Errors != 1 {
		t.Errorf("failures %d errors %d", s.Failures, s.Errors)
	}
	byID := map[string]int{}
	for i, c := range s.Cases {
		byID[strings.SplitN(c.Name, ":", 2)[0]] = i
	}
	if s.Skipped != 4 || doc.Skipped != 4 {
		t.Errorf("skipped %d (document %d), want the 4 unlabelled cases", s.Skipped, doc.Skipped)
	}
	for _, id := range []string{"u-bread", "u-ros", "u-none"} {
		if c := s.Cases[byID[id]]; c.Skipped == nil || !strings.Contains(c.Skipped.Message, "unlabelled") {
			t.Errorf("unlabelled case %s is not skipped: %+v", id, c)
		}
	}
	c := s.Cases[byID["u-bread"]]
	if c.Classname != "off-topic" || c.Name != "u-bread: bake bread?" || c.Failure != nil ||
		!strings.Contains(c.SystemOut, "best score 0.100") || !strings.Contains(c.SystemOut, "a content gap") {
		t.Errorf("unlabelled gap case: %+v", c)
	}
	if c := s.Cases[byID["u-ros"]]; c.Classname != "gaps" || strings.Contains(c.SystemOut, "gap") {
		t.Errorf("unlabelled case above the threshold: %+v", c)
	}
	if c := s.Cases[byID["u-none"]]; !strings.Contains(c.SystemOut, "nothing retrieved") {
		t.Errorf("unlabelled case without a hit: %+v", c)
	}
	if c := s.Cases[byID["fail-noanswer"]]; c.Failure == nil || c.Failure.Type != "fail" || !strings.Contains(c.Failure.Message, "no-answer") {
		t.Errorf("failed case: %+v", c)
	}
	if c := s.Cases[byID["miss-page"]]; c.Failure == nil || c.Failure.Type != "miss" || !strings.Contains(c.Failure.Text, "no relevant hit") {
		t.Errorf("missed case: %+v", c)
	}
	if c := s.Cases[byID["err<&>"]]; c.Error == nil || !strings.Contains(c.Error.Message, "store exploded") {
		t.Errorf("errored case: %+v", c)
	}
	last := s.Cases[len(s.Cases)-1]
	if last.Name != JUnitVerdictName || last.Failure == nil || !strings.Contains(last.Failure.Text, "miss-page") {
		t.Errorf("verdict: %+v", last)
	}
	if strings.ContainsRune(raw, '\x1b') {
		t.Error("an escape character reached the XML")
	}

	// A miss a threshold allows (and that the run meets) passes, with
	// its reasons in system-out.
	zero := 0.0
	rep = mixedRun(t, Thresholds{MinHitAtK: &zero})
	doc, _ = parseJUnit(t, rep)
	s = doc.Suites[0]
	c = s.Cases[byID["miss-page"]]
	if c.Failure != nil || !strings.HasPrefix(c.SystemOut, "miss allowed by min_hit_at_k 0.00:") {
		t.Errorf("allowed miss: %+v", c)
	}
	if s.Failures != 2 {
		t.Errorf("failures %d, want 2 (fail-noanswer and the verdict)", s.Failures)
	}
}

func TestWriteMarkdown(t *testing.T) {
	rep := mixedRun(t, Thresholds{})
	rep.Cases[0].Reasons = nil
	var b bytes.Buffer
	if err := WriteMarkdown(&b, rep); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## ragscope eval: gaps — ❌ FAIL\n",
		"| cases | pass | miss | fail | error | unlabelled | hit@1 |",
		// 1 pass: the 4 unlabelled cases neither pass nor fail.
		"| 8 | 1 | 1 | 1 | 1 | 4 | 0.333 |",
		"### By category\n",
		"### Cases that did not pass (3)\n",
		"| miss-page | edge | miss | no relevant hit in the top 5",
		"| err&lt;&amp;&gt; | edge | error | error: ",
		"### Unlabelled questions (4)\n\n3 of 4 questions find nothing above 0.35 (the run's threshold).\n",
		"| u-none | none | gap | nothing? |  |\n| u-bread | 0.100 | gap | bake bread? | docs/module-2-simulation/01-gazebo-digital-twin.md |",
		"### Why the run failed\n\n- case fail-noanswer: no-answer:",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	if strings.ContainsRune(md, '\x1b') {
		t.Error("an escape character reached the Markdown")
	}
	if got := mdCell("a | b <script> *x* [l](u)\nnext"); got != `a \| b &lt;script&gt; \*x\* \[l\](u) next` {
		t.Errorf("mdCell: %q", got)
	}
}

// TestReportsWithoutLabels: a set of unlabelled questions only has no
// pass, no fail and no ranking metric: the Markdown says NO LABELS with
// 0 passes and "-" metrics, and the JSON summary's ranking metrics (the
// whole run's and each category's) are null, not 0.
func TestReportsWithoutLabels(t *testing.T) {
	w, set := gapWorld()
	set.Cases = set.Cases[:4] // the unlabelled ones
	rep := run(t, w, set, Options{})
	if rep.Summary.RankingCases != 0 || rep.Summary.Unlabelled != len(rep.Cases) || !rep.Passed {
		t.Fatalf("summary %+v", rep.Summary)
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, rep); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	row := fmt.Sprintf("| %d | 0 | 0 | 0 | 0 | %d | - | - | - | - | - |", len(rep.Cases), len(rep.Cases))
	if !strings.Contains(md, "— ➖ NO LABELS\n") || !strings.Contains(md, row) || strings.Contains(md, "✅") {
		t.Errorf("Markdown lacks NO LABELS or %q:\n%s", row, md)
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary    map[string]any   `json:"summary"`
		Categories []map[string]any `json:"categories"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	sums := []map[string]any{doc.Summary}
	sums = append(sums, doc.Categories...)
	for _, s := range sums {
		for _, k := range []string{"hit_at_1", "hit_at_k", "mrr", "ndcg", "recall"} {
			if v, ok := s[k]; !ok || v != nil {
				t.Errorf("%s = %v (present %v), want null", k, v, ok)
			}
		}
		if s["unlabelled"] == nil || s["cases"] == nil {
			t.Errorf("summary lost its counts: %v", s)
		}
	}
	if len(doc.Categories) == 0 || doc.Categories[0]["category"] == nil {
		t.Errorf("categories %v", doc.Categories)
	}
	// With a ranking case the metrics are numbers, as before.
	raw, _ = json.Marshal(mixedRun(t, Thresholds{}))
	if !strings.Contains(string(raw), `"mrr":0.333`) {
		t.Errorf("labelled run's MRR not a number: %.300s", raw)
	}
}
