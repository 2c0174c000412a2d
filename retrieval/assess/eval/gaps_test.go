package eval

import (
	"strings"
	"testing"
)

// gapWorld has three unlabelled questions (best scores 0.8, 0.3 and 0.1),
// one that retrieves nothing, and one labelled case that hits.
func gapWorld() (*world, Set) {
	w := newWorld()
	w.add("what is ros?", chunk("a", qosDoc, "S", "ROS 2 is middleware", 0.8), chunk("b", nodeDoc, "S", "nodes", 0.4))
	w.add("how do nodes talk?", chunk("c", nodeDoc, "S", "topics", 0.3))
	w.add("bake bread?", chunk("d", simDoc, "S", "gazebo", 0.1))
	w.add("nothing?")
	w.add("labelled", chunk("e", qosDoc, "S", "QoS", 0.9), chunk("f", simDoc, "S", "sim", 0.05))
	set := Set{Name: "gaps", Cases: []Case{
		{ID: "u-ros", Question: "what is ros?"},
		{ID: "u-nodes", Question: "how do nodes talk?"},
		{ID: "u-bread", Question: "bake bread?", Category: "off-topic"},
		{ID: "u-none", Question: "nothing?"},
		{ID: "l-qos", Question: "labelled", Expect: Expect{DocPaths: []string{"docs/" + qosDoc}}},
	}}
	return w, set
}

// TestUnlabelledReport: unlabelled cases never pass or fail by ranking;
// the report gives their best-score distribution (hits the threshold cut
// included), the content gaps under the run's threshold and the lowest
// best scores first, no hit first of all.
func TestUnlabelledReport(t *testing.T) {
	w, set := gapWorld()
	th := 0.35
	rep := run(t, w, set, Options{Threshold: &th})
	if !rep.Passed || rep.Summary.Unlabelled != 4 || rep.Summary.RankingCases != 1 {
		t.Fatalf("passed %v, summary %+v, reasons %v", rep.Passed, rep.Summary, rep.Reasons)
	}
	if want := "all 1 labelled case passed; 4 unlabelled ran without a check"; rep.Verdict != want {
		t.Errorf("verdict %q, want %q", rep.Verdict, want)
	}
	u := rep.Unlabelled
	if u == nil {
		t.Fatal("no unlabelled report")
	}
	if u.Cases != 4 || u.NoHits != 1 || u.Gaps != 3 || u.Threshold == nil || *u.Threshold != 0.35 || u.ThresholdSource != GapThresholdRun {
		t.Errorf("report %+v", u)
	}
	if d := u.BestScore; d.Min != 0.1 || d.P50 != 0.3 || d.Max != 0.8 || d.Histogram[1].Cases != 1 || d.Histogram[3].Cases != 1 || d.Histogram[8].Cases != 1 {
		t.Errorf("distribution %+v", d)
	}
	var ids []string
	for _, g := range u.Lowest {
		ids = append(ids, g.ID)
	}
	if got := strings.Join(ids, ","); got != "u-none,u-bread,u-nodes,u-ros" {
		t.Errorf("lowest %s", got)
	}
	if g := u.Lowest[1]; !g.Gap || g.Best != "docs/"+simDoc || *g.BestScore != 0.1 || g.Category != "off-topic" {
		t.Errorf("u-bread %+v", g)
	}
	if u.Lowest[3].Gap {
		t.Error("u-ros (0.8) is marked a gap")
	}
	if want := "3 of 4 questions find nothing above 0.35 (the run's threshold)"; u.GapLine() != want {
		t.Errorf("gap line %q, want %q", u.GapLine(), want)
	}
}

// TestUnlabelledThresholdSources: without a run threshold the labelled
// cases' suggestion is used; with neither only cases without a hit are
// gaps; a set without unlabelled cases has no report.
func TestUnlabelledThresholdSources(t *testing.T) {
	w, set := gapWorld()
	rep := run(t, w, set, Options{})
	u := rep.Unlabelled
	if rep.Calibration.Suggested == nil || u.ThresholdSource != GapThresholdSuggested || *u.Threshold != *rep.Calibration.Suggested {
		t.Fatalf("calibration %+v, report %+v", rep.Calibration, u)
	}
	if !strings.Contains(u.GapLine(), "the threshold the labelled cases suggest") {
		t.Errorf("gap line %q", u.GapLine())
	}

	none := Unlabelled(rep.Cases, 0, nil)
	if none.Threshold != nil || none.Gaps != 1 || !strings.HasPrefix(none.GapLine(), "1 of 4 questions find nothing; no threshold") {
		t.Errorf("without a threshold: %+v, %q", none, none.GapLine())
	}
	if got := Unlabelled(rep.Cases[4:], 0.3, nil); got != nil {
		t.Errorf("a run without unlabelled cases has a report: %+v", got)
	}
}
