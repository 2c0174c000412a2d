package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval/assess/eval"
)

// runEvalCLI runs ragscope in an isolated environment (no environment
// variables but RAGSCOPE_LOCAL_SEARCH=hybrid, a temporary working
// directory: the demo backend, searched hybrid).
func runEvalCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	app := &App{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: t.TempDir(),
		// The ranks and scores these tests expect are the hybrid
		// search's (the demo's default is BM25 alone).
		LookupEnv: func(k string) (string, bool) {
			if k == "RAGSCOPE_LOCAL_SEARCH" {
				return "hybrid", true
			}
			return "", false
		},
	}
	code := app.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

func writeSet(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEvalDemoSetPasses(t *testing.T) {
	code, out, errs := runEvalCLI(t, "eval")
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{
		"ragscope · demo textbook", "Golden set: demo-textbook (embedded demo set)",
		"ID  ", "HIT@1", "RANK", "NDCG", "ros2-qos-silent-subscriber", "PASS (selected-text)", "PASS (no-answer)",
		"Overall (", "hit@1 ", "MRR ", "latency p50 ", "By category", "module-3-isaac",
		"Score calibration", "suggested threshold", "Thresholds: hit@k", "\nPASS: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errs != "" {
		t.Errorf("stderr is not a terminal, yet got %q", errs)
	}
}

const brokenSet = `name: broken
thresholds: {min_hit_at_k: 0.9}
cases:
  - id: right
    question: How do I describe my robot's body and joints to ROS?
    expect: {doc_paths: [docs/module-1-ros2/05-urdf-humanoids.md]}
  - id: wrong-page
    question: How do I describe my robot's body and joints to ROS?
    expect: {doc_paths: [docs/capstone/02-milestones-evaluation.md], urls: ["/textbook/docs/capstone/milestones-evaluation#grading-rubric"]}
  - id: too-slow
    question: What is a digital twin?
    expect: {modules: [module-2-simulation], max_latency_ms: 0.0001}
  - id: "evil\e[31m"
    question: How do I bake bread for my robot?
    expect: {no_answer: true, max_score: 0.01}
`

func TestEvalBrokenSetExit4(t *testing.T) {
	p := writeSet(t, "broken.yaml", brokenSet)
	code, out, errs := runEvalCLI(t, "eval", p)
	if code != ExitCheck {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitCheck, out, errs)
	}
	for _, want := range []string{
		"FAIL (3 reasons)",
		"case too-slow: latency",
		"above max_latency_ms",
		"case evil: no-answer:",
		"hit@k 0.667 is below the minimum 0.900 (missed: wrong-page)",
		"MISS no relevant hit in the top 5 (#1 was docs/module-1-ros2/05-urdf-humanoids.md)",
		"Thresholds: hit@k 0.667 (min 0.90) FAILED",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("an escape sequence from the set reached the output")
	}
	// Flags override the file's thresholds: with a low enough minimum the
	// hit@k check passes, the case checks still fail.
	_, out, _ = runEvalCLI(t, "eval", "--min-hit-at-k", "0.6", p)
	if !strings.Contains(out, "FAIL (2 reasons)") || strings.Contains(out, "hit@k 0.667 is below") {
		t.Errorf("--min-hit-at-k did not override the file:\n%s", out)
	}
	// --category keeps only the cases asked for.
	code, out, _ = runEvalCLI(t, "eval", "--category", "nope", p)
	if code != ExitUsage {
		t.Errorf("unknown category: exit %d\n%s", code, out)
	}
}

func TestEvalJSONOutAndBaseline(t *testing.T) {
	dir := t.TempDir()
	good := writeSet(t, "good.json", `{"cases": [
  {"id": "urdf", "question": "How do I describe my robot's body and joints to ROS?", "expected_doc_paths": ["docs/module-1-ros2/05-urdf-humanoids.md"]},
  {"id": "qos", "question": "My subscriber is connected to the topic but never gets any data. What could cause that?", "expected_modules": ["module-1-ros2"]}
]}`)
	report := filepath.Join(dir, "report.json")
	code, out, errs := runEvalCLI(t, "eval", "--json", "--out", report, good)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json is not a report: %v\n%s", err, out)
	}
	if rep.Schema != eval.Schema || len(rep.Cases) != 2 || rep.Summary.HitAtK != 1 || rep.Backend.Backend != "demo" {
		t.Errorf("report = %+v", rep.Summary)
	}
	if b, err := os.ReadFile(report); err != nil || !bytes.Equal(bytes.TrimSpace(b), bytes.TrimSpace([]byte(out))) {
		t.Errorf("--out differs from --json: %v", err)
	}

	// The qos case now expects the wrong module: a regression (the file
	// allows the miss, so only --fail-on-regression fails the run).
	worse := writeSet(t, "worse.json", `{"thresholds": {"min_hit_at_k": 0.5}, "cases": [
  {"id": "urdf", "question": "How do I describe my robot's body and joints to ROS?", "expected_doc_paths": ["docs/module-1-ros2/05-urdf-humanoids.md"]},
  {"id": "qos", "question": "My subscriber is connected to the topic but never gets any data. What could cause that?", "expected_modules": ["capstone"]},
  {"id": "new", "question": "What exactly is a digital twin of a robot?", "expected_modules": ["module-2-simulation"]}
]}`)
	code, out, _ = runEvalCLI(t, "eval", "--baseline", report, worse)
	if code != ExitOK {
		t.Errorf("regressions alone must not fail without --fail-on-regression: exit %d", code)
	}
	for _, want := range []string{"Against baseline " + report, "hit@k 1.000 → 0.667 (-0.333) !", "REGRESSION", "regressions (hit before, miss now): qos", "new cases: new"} {
		if !strings.Contains(out, want) {
			t.Errorf("baseline output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runEvalCLI(t, "eval", "--baseline", report, "--fail-on-regression", worse)
	if code != ExitCheck || !strings.Contains(out, "regressions against the baseline: qos") {
		t.Errorf("--fail-on-regression: exit %d\n%s", code, out)
	}
	code, out, _ = runEvalCLI(t, "eval", "--json", "--baseline", report, worse)
	if code != ExitOK || !strings.Contains(out, `"regressions": [
      "qos"
    ]`) {
		t.Errorf("--json lacks the baseline diff: exit %d\n%s", code, out)
	}
}

func TestEvalUsageErrors(t *testing.T) {
	bad := writeSet(t, "bad.yaml", "cases:\n  - question: q\n    top_k: 500\n    expected_modules: [m]\n")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"eval", bad}, "bad.yaml:3: cases[0].top_k: must be 1..100, got 500"},
		{[]string{"eval", "missing.yaml"}, "golden set missing.yaml does not exist"},
		{[]string{"eval", "--min-mrr", "2"}, "--min-mrr must be 0..1"},
		{[]string{"eval", "-k", "0"}, "--top-k must be 1..100"},
		{[]string{"eval", "--concurrency", "0"}, "--concurrency must be 1..64"},
		{[]string{"eval", "--max-p95-ms", "-1"}, "--max-p95-ms must be a positive"},
		{[]string{"eval", "--fail-on-regression"}, "goes with --baseline"},
		{[]string{"eval", "--baseline", bad}, "--baseline"},
		{[]string{"eval", "a", "b"}, "at most one FILE"},
	}
	for _, tt := range tests {
		code, _, errs := runEvalCLI(t, tt.args...)
		if code != ExitUsage || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want 64 and %q", tt.args, code, errs, tt.want)
		}
	}
}
