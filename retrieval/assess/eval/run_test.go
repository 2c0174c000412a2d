package eval

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"ragscope/retrieval"
)

const (
	qosDoc  = "module-1-ros2/01-what-is-ros2.md"
	nodeDoc = "module-1-ros2/02-nodes-topics-services.md"
	simDoc  = "module-2-simulation/01-gazebo-digital-twin.md"
)

func run(t *testing.T, w *world, set Set, opts Options) Report {
	t.Helper()
	rep, err := Run(context.Background(), w.pipeline(), set, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRunRankingMetricsAndDuplicates(t *testing.T) {
	w := newWorld()
	// The relevant chunk comes second; its near-copy on another page is
	// dropped by dedup and must not count.
	w.add("why no data?",
		chunk("a", nodeDoc, "Example", "services are synchronous calls between nodes", 0.9),
		chunk("b", qosDoc, "Quality of Service", "a subscriber that silently receives nothing: QoS mismatch", 0.8),
		chunk("c", simDoc, "Prerequisites", "a subscriber that silently receives nothing: QoS mismatch", 0.7),
	)
	// Only a duplicate of a non-relevant chunk is on the expected page.
	w.add("dup only",
		chunk("a", nodeDoc, "Example", "identical text", 0.9),
		chunk("z", simDoc, "Step", "identical text", 0.8),
	)
	set := Set{Cases: []Case{
		{ID: "qos", Question: "why no data?", Expect: Expect{
			DocPaths: []string{"docs/" + qosDoc, "docs/" + simDoc},
			URLs:     []string{"https://book.example/docs/module-1-ros2/what-is-ros2#quality-of-service"},
			Keywords: []string{"QoS", "DDS"},
		}},
		{ID: "dup", Question: "dup only", Expect: Expect{DocPaths: []string{simDoc}}},
	}}
	rep := run(t, w, set, Options{})
	c := rep.Cases[0]
	if c.Status != StatusMiss || c.HitAt1 || !c.HitAtK || c.FirstRelevantRank != 2 || c.ReciprocalRank != 0.5 {
		t.Errorf("qos = %+v", c)
	}
	// grades 0, 2 (doc path + URL anchor); ideal 2, 0 -> nDCG = (2/log2 3)/2 = 0.6309.
	near(t, "ndcg", c.NDCG, 0.6309, 0.0001)
	// Two known documents; the simulation copy was dropped as a duplicate.
	if c.KnownItems != 3 || c.FoundItems != 2 {
		t.Errorf("known/found = %d/%d", c.KnownItems, c.FoundItems)
	}
	near(t, "recall", c.Recall, 2.0/3, 1e-9)
	if *c.KeywordCoverage != 0.5 || c.MissingKeywords[0] != "DDS" || !strings.Contains(strings.Join(c.Reasons, ";"), "missing keywords: DDS") {
		t.Errorf("keywords = %v %v %v", *c.KeywordCoverage, c.MissingKeywords, c.Reasons)
	}
	d := rep.Cases[1]
	if d.HitAtK || d.Status != StatusMiss || len(d.Hits) != 1 {
		t.Errorf("a dropped duplicate counted: %+v", d)
	}
	if !strings.Contains(d.Reasons[0], "no relevant hit in the top 5 (#1 was docs/"+nodeDoc+")") {
		t.Errorf("reason = %q", d.Reasons)
	}
}

// Equal scores are ordered by chunk id (the pipeline's tie-break), so the
// metrics do not depend on the order the store returned them in.
func TestRunTiesAreDeterministic(t *testing.T) {
	for _, order := range [][]string{{"a", "b"}, {"b", "a"}} {
		w := newWorld()
		var chunks []retrieval.ScoredChunk
		for _, id := range order {
			doc := nodeDoc
			if id == "b" {
				doc = qosDoc
			}
			chunks = append(chunks, chunk(id, doc, "S", "text "+id, 0.5))
		}
		w.add("tie", chunks...)
		rep := run(t, w, Set{Cases: []Case{{ID: "t", Question: "tie", Expect: Expect{Modules: []string{"module-1-ros2"}, Chapters: []string{"what-is-ros2"}}}}}, Options{})
		c := rep.Cases[0]
		// a (grade 1: module) ranks first, b (grade 2) second.
		if c.FirstRelevantRank != 1 || c.Hits[0].ChunkID != "a" || c.Hits[0].Grade != 1 || c.Hits[1].Grade != 2 {
			t.Errorf("order %v: %+v", order, c.Hits)
		}
		near(t, "ndcg tie", c.NDCG, (1+2/1.5849625007)/(2+1/1.5849625007), 1e-6)
	}
}

func TestRunNoAnswer(t *testing.T) {
	w := newWorld()
	w.add("bread?", chunk("a", nodeDoc, "S", "x", 0.31), chunk("b", qosDoc, "S", "y", 0.12))
	cases := []Case{
		{ID: "low", Question: "bread?", Expect: Expect{NoAnswer: true, MaxScore: f64(0.35)}},
		{ID: "high", Question: "bread?", Expect: Expect{NoAnswer: true, MaxScore: f64(0.3)}},
		{ID: "threshold", Question: "bread?", Expect: Expect{NoAnswer: true}},
	}
	rep := run(t, w, Set{Cases: cases}, Options{Threshold: f64(0.4)})
	if rep.Cases[0].Status != StatusPass || rep.Cases[2].Status != StatusPass {
		t.Errorf("below the limits: %+v / %+v", rep.Cases[0], rep.Cases[2])
	}
	if c := rep.Cases[1]; c.Status != StatusFail || !strings.Contains(c.Reasons[0], "scored 0.310, reaching max_score 0.300") {
		t.Errorf("above max_score: %+v", c)
	}
	// With no threshold at all, any hit reaches it.
	rep = run(t, w, Set{Cases: cases[2:]}, Options{})
	if c := rep.Cases[0]; c.Status != StatusFail || !strings.Contains(c.Reasons[0], "reaching the threshold 0.000") {
		t.Errorf("threshold 0: %+v", c)
	}
	if rep.Passed || !strings.Contains(rep.Reasons[0], "case threshold: no-answer") {
		t.Errorf("run reasons = %v", rep.Reasons)
	}
	// No-answer hits feed the calibration as non-relevant.
	if rep.Calibration.NonRelevant != 2 || rep.Calibration.Relevant != 0 || rep.Calibration.Suggested != nil {
		t.Errorf("calibration = %+v", rep.Calibration)
	}
}

func TestRunSelectedText(t *testing.T) {
	w := newWorld()
	set := Set{Cases: []Case{{
		ID: "sel", Question: "explain", Mode: retrieval.ModeSelectedText, SelectedText: "  QoS profiles must match.  ",
		SourceDocPath: "docs/" + qosDoc, SourceSection: "Quality of Service",
		Expect: Expect{DocPaths: []string{qosDoc}, Keywords: []string{"qos"}},
	}}}
	rep := run(t, w, set, Options{})
	c := rep.Cases[0]
	if c.Status != StatusPass || c.Kind != KindSelectedText || len(c.Hits) != 1 || c.Hits[0].ChunkID != "selection" || *c.KeywordCoverage != 1 {
		t.Errorf("selected = %+v", c)
	}
	if n := len(w.embedCalls()); n != 0 {
		t.Errorf("selected-text cases made %d embed calls", n)
	}
	if rep.Summary.RankingCases != 0 || rep.Summary.Latency.Cases != 0 || !rep.Passed {
		t.Errorf("summary = %+v", rep.Summary)
	}

	// checkSelection against results a broken pipeline could produce.
	sel := set.Cases[0]
	good := retrieval.Result{
		Hits:     []retrieval.Hit{{Rank: 1, Chunk: retrieval.Chunk{ID: "selection"}}},
		Grounded: retrieval.Grounded{Instruction: retrieval.InstructionSelectedText, Context: "QoS profiles must match."},
	}
	if r := checkSelection(sel, good); len(r) != 0 {
		t.Errorf("good selection failed: %v", r)
	}
	leaked := good
	leaked.Hits = append(leaked.Hits, retrieval.Hit{Rank: 2, Chunk: retrieval.Chunk{ID: "chunk-9"}})
	leaked.Grounded.Context = "[Source 1: X]\nQoS profiles must match."
	leaked.Grounded.Instruction = retrieval.InstructionNormal
	r := strings.Join(checkSelection(sel, leaked), "; ")
	for _, want := range []string{`retrieved chunk "chunk-9"`, "[Source N]", "not the selected-text instruction", "got 2 hits"} {
		if !strings.Contains(r, want) {
			t.Errorf("leaked selection: %q lacks %q", r, want)
		}
	}
	missing := good
	missing.Grounded.Context = "something else"
	if r := checkSelection(sel, missing); len(r) != 1 || !strings.Contains(r[0], "does not contain the selection") {
		t.Errorf("missing selection: %v", r)
	}
}

func TestRunBatchesAndConcurrency(t *testing.T) {
	w := newWorld()
	w.embedDelay = 30 * time.Millisecond
	w.delay = 20 * time.Millisecond
	var cases []Case
	for i := 0; i < 200; i++ {
		q := fmt.Sprintf("question %d", i)
		w.add(q, chunk(fmt.Sprintf("c%d", i), qosDoc, "S", "text", 0.5))
		cases = append(cases, Case{ID: fmt.Sprintf("q%03d", i), Question: q, Category: []string{"a", "b"}[i%2], Expect: Expect{Modules: []string{"module-1-ros2"}}})
	}
	var order []string
	calls, lastDone, lastTotal := 0, 0, 0
	start := time.Now()
	rep := run(t, w, Set{Cases: cases}, Options{
		Concurrency: 16, LatencySample: -1,
		// Not synchronised on purpose: -race proves the callbacks never overlap.
		OnCase:   func(c CaseResult) { order = append(order, c.ID) },
		Progress: func(done, total int) { calls++; lastDone, lastTotal = done, total },
	})
	wall := time.Since(start)
	if got := w.embedCalls(); len(got) != 3 || got[0]+got[1]+got[2] != 200 || max(got[0], got[1], got[2]) != 96 {
		t.Errorf("embed batches = %v, want 96+96+8", got)
	}
	if rep.Params.EmbedCalls != 3 {
		t.Errorf("EmbedCalls = %d", rep.Params.EmbedCalls)
	}
	// Each embed batch is searched as one batch; this store has no batch
	// call, so each batch runs its searches retrieval.DefaultBatchConcurrency
	// at a time: 3 batches, at most 24 searches in flight.
	t.Logf("200 cases: wall %v", wall)
	w.mu.Lock()
	peak := w.peak
	w.mu.Unlock()
	if peak < 2 || peak > 3*retrieval.DefaultBatchConcurrency {
		t.Errorf("%d searches ran at once, want concurrency bounded by 3 batches × %d and above 1", peak, retrieval.DefaultBatchConcurrency)
	}
	if calls != 200 || lastDone != 200 || lastTotal != 200 || len(order) != 200 {
		t.Errorf("callbacks: %d progress, last %d/%d, %d cases", calls, lastDone, lastTotal, len(order))
	}
	for i, c := range rep.Cases {
		if c.Index != i || c.ID != fmt.Sprintf("q%03d", i) {
			t.Fatalf("report order broken at %d: %s", i, c.ID)
		}
		// Embed share = batch call / batch size.
		if c.Latency.EmbedCallMS < 30 || c.Latency.EmbedMS > c.Latency.EmbedCallMS/8+0.01 || c.Latency.EmbedMS <= 0 {
			t.Fatalf("latency %+v", c.Latency)
		}
	}
	if rep.Summary.HitAtK != 1 || len(rep.Categories) != 2 || rep.Categories[0].Category != "a" || rep.Categories[0].Cases != 100 {
		t.Errorf("summary %+v categories %+v", rep.Summary, rep.Categories)
	}
}

func TestRunErrorsAreRecorded(t *testing.T) {
	w := newWorld()
	w.add("ok", chunk("a", qosDoc, "S", "t", 0.5))
	w.add("boom", chunk("b", qosDoc, "S", "t", 0.5))
	w.searchErr[1] = errStore
	set := Set{Cases: []Case{
		{ID: "ok", Question: "ok", Expect: Expect{Modules: []string{"module-1-ros2"}}},
		{ID: "boom", Question: "boom", Expect: Expect{Modules: []string{"module-1-ros2"}}},
		{ID: "big", Question: "ok", TopK: 500, Expect: Expect{Modules: []string{"module-1-ros2"}}},
	}}
	rep := run(t, w, set, Options{})
	if rep.Cases[0].Status != StatusPass || rep.Cases[1].Status != StatusError || rep.Cases[2].Status != StatusError {
		t.Fatalf("statuses: %v %v %v", rep.Cases[0].Status, rep.Cases[1].Status, rep.Cases[2].Status)
	}
	if !strings.Contains(rep.Cases[1].Error, "store exploded") || !strings.Contains(rep.Cases[2].Error, "top_k must be between 1 and 100") {
		t.Errorf("errors: %q / %q", rep.Cases[1].Error, rep.Cases[2].Error)
	}
	// Errored ranking cases count as misses.
	near(t, "hit@k", rep.Summary.HitAtK, 1.0/3, 1e-9)
	if rep.Passed || rep.Summary.Errors != 2 || len(rep.Reasons) != 2 {
		t.Errorf("passed=%v reasons=%v", rep.Passed, rep.Reasons)
	}

	// Every case failing the same way is an outage, not a regression.
	w.embedErr = errors.New("rate limited")
	rep, err := Run(context.Background(), w.pipeline(), set.withCases(set.Cases[:2]), Options{})
	var oe *OutageError
	if !errors.As(err, &oe) || oe.Cases != 2 {
		t.Fatalf("same error everywhere: %v", err)
	}
	for _, c := range rep.Cases {
		if c.Status != StatusError || !strings.Contains(c.Error, "embed: rate limited") {
			t.Errorf("embed failure: %+v", c)
		}
	}
}

func (s Set) withCases(cs []Case) Set { s.Cases = cs; return s }

func TestRunCancelled(t *testing.T) {
	w := newWorld()
	w.embedDelay = time.Second
	w.add("q", chunk("a", qosDoc, "S", "t", 0.5))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	rep, err := Run(ctx, w.pipeline(), Set{Cases: []Case{{ID: "q", Question: "q", Expect: Expect{Modules: []string{"m"}}}}}, Options{})
	if !errors.Is(err, context.DeadlineExceeded) || rep.Cases[0].Status != StatusError {
		t.Errorf("cancel: %v %+v", err, rep.Cases)
	}
}

func TestRunLatencyCheckAndThresholds(t *testing.T) {
	w := newWorld()
	w.delay = 15 * time.Millisecond
	w.add("q1", chunk("a", qosDoc, "S", "t", 0.5))
	w.add("q2", chunk("b", nodeDoc, "S", "t", 0.5), chunk("c", qosDoc, "S", "u", 0.4))
	w.add("q3", chunk("d", simDoc, "S", "t", 0.5))
	set := Set{
		Thresholds: Thresholds{MinHitAtK: f64(0.5), MinMRR: f64(0.9), MaxP95MS: f64(10000)},
		Cases: []Case{
			{ID: "fast", Question: "q1", Expect: Expect{DocPaths: []string{qosDoc}, MaxLatencyMS: 5}},
			{ID: "second", Question: "q2", Expect: Expect{DocPaths: []string{qosDoc}}},
			{ID: "missed", Question: "q3", Expect: Expect{DocPaths: []string{qosDoc}}},
		},
	}
	rep := run(t, w, set, Options{Thresholds: Thresholds{MinHitAtK: f64(0.9), MaxP95MS: f64(1)}})
	if c := rep.Cases[0]; c.Status != StatusFail || !strings.Contains(c.Reasons[0], "above max_latency_ms 5") {
		t.Errorf("latency check: %+v", c)
	}
	got := strings.Join(rep.Reasons, "\n")
	for _, want := range []string{
		"case fast: latency",
		"hit@k 0.667 is below the minimum 0.900 (missed: missed)",
		"MRR 0.500 is below the minimum 0.900 (rank > 1: second, missed)",
		"p95 latency",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("reasons lack %q:\n%s", want, got)
		}
	}
	// Flags override the file field by field.
	if *rep.Thresholds.MinHitAtK != 0.9 || *rep.Thresholds.MinMRR != 0.9 || *rep.Thresholds.MaxP95MS != 1 {
		t.Errorf("thresholds = %+v", rep.Thresholds)
	}
}

func TestGradeAndMatching(t *testing.T) {
	h := retrieval.Hit{
		Chunk:    retrieval.Chunk{Module: "module-1-ros2", Chapter: "what-is-ros2", DocPath: "docs/module-1-ros2/01-what-is-ros2.md"},
		Citation: retrieval.Citation{URL: "https://ex.org/textbook/docs/module-1-ros2/what-is-ros2#qos"},
	}
	tests := []struct {
		name string
		e    Expect
		want int
	}{
		{"module", Expect{Modules: []string{"Module-1-ROS2"}}, 1},
		{"chapter with prefix", Expect{Chapters: []string{"01-what-is-ros2"}}, 1},
		{"doc path without docs/", Expect{DocPaths: []string{"module-1-ros2/01-what-is-ros2"}}, 1},
		{"doc path website/docs", Expect{DocPaths: []string{"website/docs/module-1-ros2/01-what-is-ros2.md"}}, 1},
		{"doc folder", Expect{DocPaths: []string{"docs/module-1-ros2/"}}, 1},
		{"doc folder no match", Expect{DocPaths: []string{"docs/module-1/"}}, 0},
		{"url exact anchor", Expect{URLs: []string{"https://ex.org/textbook/docs/module-1-ros2/what-is-ros2#qos"}}, 1},
		{"url wrong anchor", Expect{URLs: []string{"https://ex.org/textbook/docs/module-1-ros2/what-is-ros2#dds"}}, 0},
		{"url page prefix", Expect{URLs: []string{"https://ex.org/textbook/docs/module-1-ros2"}}, 1},
		{"url prefix mid-word", Expect{URLs: []string{"https://ex.org/textbook/docs/module-1"}}, 0},
		{"url relative with anchor", Expect{URLs: []string{"/textbook/docs/module-1-ros2/what-is-ros2#qos"}}, 1},
		{"url relative trailing slash", Expect{URLs: []string{"/textbook/docs/module-1-ros2/what-is-ros2/"}}, 1},
		{"url other host", Expect{URLs: []string{"https://other.org/textbook/docs/module-1-ros2"}}, 0},
		{"all four", Expect{Modules: []string{"module-1-ros2"}, Chapters: []string{"what-is-ros2"}, DocPaths: []string{"module-1-ros2/01-what-is-ros2.md"}, URLs: []string{"/textbook/docs/module-1-ros2/what-is-ros2#qos"}}, 4},
		{"two of four", Expect{Modules: []string{"module-1-ros2"}, URLs: []string{"/textbook/docs/intro"}}, 1},
	}
	for _, tt := range tests {
		if got := Grade(h, tt.e); got != tt.want {
			t.Errorf("%s: grade %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestCalibrate(t *testing.T) {
	// Relevant 0.8, 0.6, 0.35; non-relevant 0.5, 0.3, 0.1, -0.2.
	// t=0.8: TPR 1/3 FPR 0 J .333; t=0.6: 2/3, 0 -> .667; t=0.5: 2/3, 1/4 -> .417;
	// t=0.35: 1, 1/4 -> .75 (best); t=0.3: 1, 1/2 -> .5.
	// Suggested: midpoint of 0.35 and the next lower score 0.3 = 0.325.
	s := []ScoreSample{{0.8, true}, {0.6, true}, {0.35, true}, {0.5, false}, {0.3, false}, {0.1, false}, {-0.2, false}}
	c := Calibrate(s)
	if c.Suggested == nil || *c.Suggested != 0.325 {
		t.Fatalf("suggested = %v", c.Suggested)
	}
	near(t, "J", c.J, 0.75, 1e-9)
	near(t, "TPR", c.TPR, 1, 1e-9)
	near(t, "FPR", c.FPR, 0.25, 1e-9)
	wantRel := []int{0, 0, 0, 1, 0, 0, 1, 0, 1, 0}
	wantNon := []int{1, 1, 0, 1, 0, 1, 0, 0, 0, 0} // -0.2 clamps into the first bin
	for i, b := range c.Bins {
		if b.Relevant != wantRel[i] || b.NonRelevant != wantNon[i] {
			t.Errorf("bin %d [%.1f,%.1f) = %d/%d, want %d/%d", i, b.Lo, b.Hi, b.Relevant, b.NonRelevant, wantRel[i], wantNon[i])
		}
	}
	// A score of exactly 1 goes in the last bin.
	if c := Calibrate([]ScoreSample{{1, true}}); c.Bins[9].Relevant != 1 || c.Suggested != nil || c.Note == "" {
		t.Errorf("one class: %+v", c)
	}
	// Ties in J keep the lower threshold: 0.9 and 0.5 both give J = 0.5.
	c = Calibrate([]ScoreSample{{0.9, true}, {0.5, true}, {0.5, false}, {0.1, false}})
	if *c.Suggested != 0.3 {
		t.Errorf("tie: suggested %v, want 0.3", *c.Suggested)
	}
}

func TestCompare(t *testing.T) {
	mk := func(id string, kind Kind, hit bool, status Status, rank int) CaseResult {
		return CaseResult{ID: id, Kind: kind, HitAtK: hit, Status: status, FirstRelevantRank: rank, ReciprocalRank: rr(rank)}
	}
	old := Report{Schema: Schema, Set: "s", Summary: Summary{HitAtK: 0.75, MRR: 0.6, Latency: LatencySummary{P95MS: 100}}, Cases: []CaseResult{
		mk("a", KindRanking, true, StatusPass, 1),
		mk("b", KindRanking, false, StatusMiss, 0),
		mk("c", KindRanking, true, StatusPass, 2),
		mk("n", KindNoAnswer, false, StatusPass, 0),
		mk("gone", KindRanking, true, StatusPass, 1),
	}}
	cur := Report{Schema: Schema, Set: "s", Summary: Summary{HitAtK: 0.5, MRR: 0.7, Latency: LatencySummary{P95MS: 80}}, Cases: []CaseResult{
		mk("a", KindRanking, false, StatusMiss, 0),
		mk("b", KindRanking, true, StatusPass, 3),
		mk("c", KindRanking, true, StatusPass, 1),
		mk("n", KindNoAnswer, false, StatusFail, 0),
		mk("new", KindRanking, true, StatusPass, 1),
	}}
	d := Compare(old, cur)
	if fmt.Sprint(d.Regressions) != "[a n]" || fmt.Sprint(d.Fixed) != "[b]" || fmt.Sprint(d.Added) != "[new]" || fmt.Sprint(d.Removed) != "[gone]" {
		t.Errorf("diff = %+v", d)
	}
	if len(d.Cases) != 4 || d.Cases[2].DeltaRR != 0.5 || d.Cases[2].OldRank != 2 || d.Cases[2].NewRank != 1 {
		t.Errorf("case deltas = %+v", d.Cases)
	}
	for _, m := range d.Overall {
		switch m.Metric {
		case "hit@k":
			if m.Delta != -0.25 || !m.Worse() {
				t.Errorf("hit@k = %+v", m)
			}
		case "p95_ms":
			if m.Delta != -20 || m.Worse() {
				t.Errorf("p95 = %+v", m)
			}
		}
	}
}

func rr(rank int) float64 {
	if rank == 0 {
		return 0
	}
	return 1 / float64(rank)
}

func TestReportJSONRoundTrip(t *testing.T) {
	w := newWorld()
	w.add("q", chunk("a", qosDoc, "S", "t", 0.5))
	rep := run(t, w, Set{Name: "x", Cases: []Case{{ID: "q", Question: "q", Expect: Expect{Modules: []string{"module-1-ros2"}}}}}, Options{})
	var b strings.Builder
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"schema": "ragscope.eval/v1"`, `"hit_at_k": true`, `"suggested_threshold": null`, `"p95_ms"`, `"embed_calls": 1`} {
		if !strings.Contains(b.String(), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	back, err := ReadReport(strings.NewReader(b.String()))
	if err != nil || back.Cases[0].ID != "q" || !back.Cases[0].HitAtK || back.Summary.HitAtK != 1 {
		t.Errorf("round trip: %v %+v", err, back.Summary)
	}
	if _, err := ReadReport(strings.NewReader(`{"schema": "ragscope.query/v1"}`)); err == nil {
		t.Error("a query document was accepted as a report")
	}
}

func TestLatencyWorseNeedsARealChange(t *testing.T) {
	tests := []struct {
		old, new float64
		worse    bool
	}{
		{0.1, 0.2, false}, // timer noise
		{100, 105, false}, // +5%
		{100, 150, true},
		{5, 7, true},
		{200, 150, false},
	}
	for _, tt := range tests {
		m := MetricDelta{Metric: "p95_ms", Old: tt.old, New: tt.new, Delta: tt.new - tt.old}
		if m.Worse() != tt.worse {
			t.Errorf("%v -> %v: worse = %v", tt.old, tt.new, m.Worse())
		}
	}
}

// With no thresholds every miss fails the run and the verdict names the
// cases; a threshold that covers the miss lets it through and says so.
func TestJudgeStrictByDefault(t *testing.T) {
	w := newWorld()
	w.add("q1", chunk("a", qosDoc, "S", "t", 0.5))
	w.add("q2", chunk("b", nodeDoc, "S", "t", 0.5))
	w.add("q3", chunk("c", simDoc, "S", "words here", 0.5))
	cases := []Case{
		{ID: "ok", Question: "q1", Expect: Expect{DocPaths: []string{qosDoc}}},
		{ID: "must-miss", Question: "q2", Expect: Expect{Modules: []string{"no-such-module"}}},
	}
	rep := run(t, w, Set{Cases: cases}, Options{})
	if rep.Passed || !strings.Contains(rep.Verdict, "1 case missed and no thresholds are set: must-miss") {
		t.Fatalf("strict default: passed %v verdict %q reasons %v", rep.Passed, rep.Verdict, rep.Reasons)
	}
	// Every case misses: every one is named.
	all := []Case{cases[1], {ID: "also-miss", Question: "q1", Expect: Expect{DocPaths: []string{simDoc}}}}
	rep = run(t, w, Set{Cases: all}, Options{})
	if rep.Passed || !strings.Contains(rep.Verdict, "2 cases missed and no thresholds are set: must-miss, also-miss") {
		t.Errorf("every case misses: %v %q", rep.Passed, rep.Verdict)
	}
	// A threshold that allows the miss decides, and the verdict says so.
	rep = run(t, w, Set{Cases: cases, Thresholds: Thresholds{MinHitAtK: f64(0.5)}}, Options{})
	if !rep.Passed || rep.Verdict != "1 miss allowed by min_hit_at_k 0.50" {
		t.Errorf("allowed miss: %v %q %v", rep.Passed, rep.Verdict, rep.Reasons)
	}
	// A threshold that does not cover the kind of miss does not open the gate.
	rep = run(t, w, Set{Cases: cases, Thresholds: Thresholds{MaxP95MS: f64(1e6)}}, Options{})
	if rep.Passed || !strings.Contains(rep.Verdict, "1 case missed and no threshold allows it") {
		t.Errorf("uncovered miss: %v %q", rep.Passed, rep.Verdict)
	}
	// Missing keywords are allowed by min_keyword_coverage only.
	kw := []Case{{ID: "kw", Question: "q3", Expect: Expect{Keywords: []string{"absent"}}}}
	if rep = run(t, w, Set{Cases: kw, Thresholds: Thresholds{MinHitAtK: f64(0)}}, Options{}); rep.Passed {
		t.Errorf("keyword miss allowed by min_hit_at_k: %q", rep.Verdict)
	}
	if rep = run(t, w, Set{Cases: kw, Thresholds: Thresholds{MinKeywordCoverage: f64(0)}}, Options{}); !rep.Passed || rep.Verdict != "1 miss allowed by min_keyword_coverage 0.00" {
		t.Errorf("keyword miss with min_keyword_coverage: %v %q", rep.Passed, rep.Verdict)
	}
	// Unmeetable thresholds fail with the threshold as the deciding rule.
	rep = run(t, w, Set{Cases: cases, Thresholds: Thresholds{MinHitAtK: f64(1.5)}}, Options{})
	if rep.Passed || !strings.HasPrefix(rep.Verdict, "hit@k 0.500 is below the minimum 1.500") {
		t.Errorf("unmeetable: %v %q", rep.Passed, rep.Verdict)
	}
	rep = run(t, w, Set{Cases: cases[:1]}, Options{})
	if !rep.Passed || rep.Verdict != "all 1 case passed" {
		t.Errorf("all pass: %v %q", rep.Passed, rep.Verdict)
	}
}

// A backend that fails every case is an outage (the error says so and
// keeps the backend's error for the exit code); one failing case among
// passing ones is not.
func TestRunOutageIsNotARegression(t *testing.T) {
	w := newWorld()
	w.add("a", chunk("a", qosDoc, "S", "t", 0.5))
	w.add("b", chunk("b", qosDoc, "S", "t", 0.5))
	set := Set{Cases: []Case{
		{ID: "a", Question: "a", Expect: Expect{DocPaths: []string{qosDoc}}},
		{ID: "b", Question: "b", Expect: Expect{DocPaths: []string{qosDoc}}},
		{ID: "sel", Mode: retrieval.ModeSelectedText, Question: "what is this?", SelectedText: "a selection of text"},
	}}
	w.searchErr[0] = fmt.Errorf("qdrant: %w", retrieval.ErrAuth)
	w.searchErr[1] = fmt.Errorf("qdrant: key refused: %w", retrieval.ErrAuth)
	rep, err := Run(context.Background(), w.pipeline(), set, Options{})
	var oe *OutageError
	if !errors.As(err, &oe) || oe.Cases != 2 || !errors.Is(err, retrieval.ErrAuth) || !strings.Contains(err.Error(), "all 2 cases") {
		t.Fatalf("outage: %v", err)
	}
	if len(rep.Cases) != 3 || rep.Cases[0].Status != StatusError {
		t.Errorf("the report is still complete: %+v", rep.Cases)
	}
	// Different non-backend errors on every case are not an outage.
	w.searchErr[0], w.searchErr[1] = errors.New("odd one"), errors.New("odd two")
	if _, err := Run(context.Background(), w.pipeline(), set, Options{}); err != nil {
		t.Errorf("case errors of their own: %v", err)
	}
	// A partial outage is judged: the run fails naming the errored case.
	delete(w.searchErr, 0)
	w.searchErr[1] = fmt.Errorf("filter rejected: %w", retrieval.ErrInvalidQuery)
	rep, err = Run(context.Background(), w.pipeline(), set, Options{})
	if err != nil || rep.Passed || rep.Cases[0].Status != StatusPass || rep.Cases[1].Status != StatusError {
		t.Errorf("partial: %v passed %v %+v", err, rep.Passed, rep.Reasons)
	}
}

// Sets written for other tools carry answer-level expectations: they load,
// the retrieval checks run, and the answer checks are reported as not run.
func TestAnswerLevelExpectationsLoadAndAreNotRun(t *testing.T) {
	set, err := Parse([]byte(`cases:
  - id: off-topic
    mode: selected_text_only
    question: What is the capital of France?
    selected_text: ROS 2 nodes talk over topics.
    expected_refuse: true
  - id: answer-words
    question: q1
    expected_answer_keywords: [node]
  - id: both
    question: q1
    expect: {doc_paths: [`+qosDoc+`], refuse: false, answer_keywords: [topic]}
`), "other-tool.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !set.Cases[0].Expect.Refuse || len(set.Cases[1].Expect.AnswerKeywords) != 1 {
		t.Fatalf("answer expectations not loaded: %+v", set.Cases)
	}
	w := newWorld()
	w.add("q1", chunk("a", qosDoc, "S", "t", 0.5))
	rep := run(t, w, set, Options{})
	want := []string{"not run: refuse", "not run: answer_keywords", "not run: answer_keywords"}
	for i, c := range rep.Cases {
		if c.AnswerCheck != want[i] {
			t.Errorf("%s: answer check %q, want %q", c.ID, c.AnswerCheck, want[i])
		}
	}
	if !rep.Passed || rep.Summary.AnswerChecksNotRun != 3 || rep.Cases[2].Kind != KindRanking || !rep.Cases[2].HitAtK {
		t.Errorf("passed %v %v summary %+v", rep.Passed, rep.Reasons, rep.Summary)
	}
	// Unknown fields stay errors.
	for _, bad := range []string{
		"cases:\n  - question: q\n    expected_refusal: true\n",
		"cases:\n  - question: q\n    expect: {refuses: true}\n",
	} {
		if _, err := Parse([]byte(bad), "bad.yaml"); !errors.Is(err, ErrInvalidSet) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Batched per-case results are identical to running each case on its own
// through Pipeline.Retrieve (latency aside), over a set mixing top_k,
// filters, modes and kinds.
func TestBatchedEqualsOneByOne(t *testing.T) {
	w := newWorld()
	w.add("q1", chunk("a", qosDoc, "S", "alpha", 0.9), chunk("b", nodeDoc, "T", "beta", 0.6), chunk("c", simDoc, "U", "gamma", 0.3))
	w.add("q2", chunk("d", simDoc, "S", "delta", 0.7), chunk("e", qosDoc, "T", "eps", 0.2))
	w.add("q3", chunk("f", nodeDoc, "S", "zeta", 0.05))
	set := Set{Cases: []Case{
		{ID: "rank", Question: "q1", Expect: Expect{DocPaths: []string{nodeDoc}}},
		{ID: "topk1", Question: "q1", TopK: 1, Expect: Expect{DocPaths: []string{nodeDoc}}},
		{ID: "filtered", Question: "q2", Filters: retrieval.Filters{Modules: []string{"module-1-ros2"}}, Expect: Expect{DocPaths: []string{qosDoc}}},
		{ID: "keywords", Question: "q2", Expect: Expect{Keywords: []string{"delta", "nope"}}},
		{ID: "none", Question: "q3", Expect: Expect{NoAnswer: true, MaxScore: f64(0.1)}},
		{ID: "sel", Mode: retrieval.ModeSelectedText, Question: "what?", SelectedText: "a selection"},
	}}
	th := 0.1
	rep := run(t, w, set, Options{Threshold: &th, Thresholds: Thresholds{MinHitAtK: f64(0)}})
	p := w.pipeline()
	for i, c := range set.Cases {
		q := rep.Cases[i].Query
		res, err := p.Retrieve(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		one := Evaluate(c, q, res)
		one.Index = i
		got := rep.Cases[i]
		got.Latency, one.Latency = Latency{}, Latency{}
		// A run also says where a miss's expected source went and what a
		// filter leaves (misses.go): not part of the case's scoring.
		got.Reasons = got.Reasons[:len(got.Reasons)-len(got.Expected)]
		got.Expected, got.FilterPoints = nil, nil
		if !reflect.DeepEqual(got, one) {
			t.Errorf("%s: batched\n%+v\none by one\n%+v", c.ID, got, one)
		}
	}
}

// A batched run cannot time one question: a sample of cases re-runs singly
// (cases with max_latency_ms always among them) and max_p95_ms is judged
// on that sample.
func TestLatencySample(t *testing.T) {
	w := newWorld()
	w.delay = 5 * time.Millisecond
	var cases []Case
	for i := 0; i < 20; i++ {
		q := fmt.Sprintf("question %d", i)
		w.add(q, chunk(fmt.Sprintf("c%d", i), qosDoc, "S", "text", 0.5))
		cases = append(cases, Case{ID: fmt.Sprintf("q%02d", i), Question: q, Expect: Expect{DocPaths: []string{qosDoc}}})
	}
	cases[7].Expect.MaxLatencyMS = 1
	rep := run(t, w, Set{Cases: cases, Thresholds: Thresholds{MaxP95MS: f64(2)}}, Options{LatencySample: 4})
	ls := rep.LatencySample
	if ls == nil || ls.Cases != 4 || ls.IDs[0] != "q07" || ls.P95MS < 5 || ls.Method != SampleMethod {
		t.Fatalf("sample %+v", ls)
	}
	// One batched embedding, then one per sampled case.
	got := w.embedCalls()
	sort.Ints(got)
	if !reflect.DeepEqual(got, []int{1, 1, 1, 1, 20}) {
		t.Errorf("embed calls %v, want one batch of 20 and 4 singles", got)
	}
	if c := rep.Cases[7]; c.Status != StatusFail || c.Latency.EmbedMS != c.Latency.EmbedCallMS {
		t.Errorf("q07 judged on its single run: %+v", c)
	}
	if !strings.Contains(strings.Join(rep.Reasons, "\n"), "(4 cases run singly) is above the maximum 2.0 ms") {
		t.Errorf("reasons %v", rep.Reasons)
	}
	if rep.ThroughputPerSec <= 0 {
		t.Errorf("throughput %v", rep.ThroughputPerSec)
	}
	if rep = run(t, w, Set{Cases: cases}, Options{LatencySample: -1}); rep.LatencySample != nil {
		t.Errorf("a negative sample still sampled: %+v", rep.LatencySample)
	}
}

type smallBatchEmbedder struct{ fakeEmbedder }

func (smallBatchEmbedder) MaxBatch() int { return 7 }

// An embedder's own batch limit (MaxBatcher) sets the embed batch size.
func TestRunHonoursMaxBatch(t *testing.T) {
	w := newWorld()
	var cases []Case
	for i := 0; i < 20; i++ {
		q := fmt.Sprintf("question %d", i)
		w.add(q, chunk(fmt.Sprintf("c%d", i), qosDoc, "S", "text", 0.5))
		cases = append(cases, Case{ID: fmt.Sprintf("q%02d", i), Question: q, Expect: Expect{DocPaths: []string{qosDoc}}})
	}
	p := w.pipeline()
	p.Embedder = smallBatchEmbedder{p.Embedder.(fakeEmbedder)}
	rep, err := Run(context.Background(), p, Set{Cases: cases}, Options{LatencySample: -1})
	if err != nil || !rep.Passed {
		t.Fatalf("%v %v", err, rep.Reasons)
	}
	got := w.embedCalls()
	sort.Ints(got)
	if !reflect.DeepEqual(got, []int{6, 7, 7}) || rep.Params.BatchSize != 7 {
		t.Errorf("embed batches %v (batch size %d), want 7+7+6", got, rep.Params.BatchSize)
	}
}

// batchCounter is an embedder in front of another that records the size
// of each call.
type batchCounter struct {
	retrieval.Embedder
	mu    sync.Mutex
	calls []int
}

func (b *batchCounter) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	b.mu.Lock()
	b.calls = append(b.calls, len(texts))
	b.mu.Unlock()
	return b.Embedder.Embed(ctx, texts)
}

// Options.BatchEmbedder (a comparison's shared memo) embeds the batches;
// the latency sample runs the pipeline's own Retrieve, with its own
// embedder, so a sampled question's latency is its own.
func TestRunBatchEmbedder(t *testing.T) {
	w := newWorld()
	var cases []Case
	for i := range 10 {
		q := fmt.Sprintf("question %d", i)
		w.add(q, chunk(fmt.Sprintf("c%d", i), qosDoc, "S", "text", 0.5))
		cases = append(cases, Case{ID: fmt.Sprintf("q%d", i), Question: q, Expect: Expect{Modules: []string{"module-1-ros2"}}})
	}
	memo := &batchCounter{Embedder: fakeEmbedder{w}}
	rep := run(t, w, Set{Cases: cases}, Options{BatchSize: 5, LatencySample: 2, BatchEmbedder: memo})
	if !slices.Equal(memo.calls, []int{5, 5}) {
		t.Errorf("batch embedder calls %v, want two of 5", memo.calls)
	}
	// w records every fakeEmbedder call: the memo's two batches and the
	// sample's two single questions through the pipeline's embedder.
	got := w.embedCalls()
	slices.Sort(got)
	if !slices.Equal(got, []int{1, 1, 5, 5}) {
		t.Errorf("embed calls %v, want the two batches and two single sampled questions", got)
	}
	if rep.Summary.HitAtK != 1 || rep.LatencySample == nil || rep.LatencySample.Cases != 2 {
		t.Errorf("summary %+v sample %+v", rep.Summary, rep.LatencySample)
	}
}
