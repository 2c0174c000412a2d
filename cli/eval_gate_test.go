package cli

import (
	"strings"
	"testing"
)

const mustMissSet = `name: gate
cases:
  - id: ros2-ok
    question: What is ROS 2?
    expect: {modules: [module-1-ros2]}
  - id: must-miss
    question: What is ROS 2?
    expect: {modules: [no-such-module]}
`

// With no thresholds a single miss fails the run (exit 4) and the summary
// names the case; a threshold in the file or on the command line lets it
// through and the verdict names the rule.
func TestEvalStrictByDefault(t *testing.T) {
	p := writeSet(t, "gate.yaml", mustMissSet)
	code, out, errs := runEvalCLI(t, "eval", p)
	if code != ExitCheck || !strings.Contains(out, "1 case missed and no thresholds are set: must-miss") {
		t.Fatalf("exit %d, want %d naming must-miss\n%s\n%s", code, ExitCheck, out, errs)
	}
	code, out, errs = runEvalCLI(t, "eval", "--min-hit-at-k", "0.5", p)
	if code != ExitOK || !strings.Contains(out, "PASS: 1 miss allowed by min_hit_at_k 0.50") {
		t.Fatalf("--min-hit-at-k 0.5: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runEvalCLI(t, "eval", "--json", p)
	if code != ExitCheck || !strings.Contains(out, `"verdict": "1 case missed and no thresholds are set: must-miss"`) {
		t.Errorf("JSON report lacks the verdict (exit %d):\n%s", code, out)
	}
}

// An outage is not a regression: a refused key or a missing collection
// exits 3 with the backend's message, a vector size mismatch 2; never 4.
func TestEvalOutageExit3(t *testing.T) {
	_, _, env := fakes(t)
	set := writeSet(t, "gate.yaml", mustMissSet)
	tests := []struct {
		name string
		env  map[string]string
		code int
		want string
	}{
		{"bad qdrant key", with(env, "QDRANT_API_KEY", "wrong"), ExitBackend, "QDRANT_API_KEY"},
		{"bad cohere key", with(env, "COHERE_API_KEY", "wrong"), ExitBackend, "COHERE_API_KEY"},
		{"missing collection", with(env, "QDRANT_COLLECTION", "nope"), ExitBackend, "nope"},
		{"vector size", with(env, "QDRANT_COLLECTION", "small_vectors"), ExitConfig, "1024"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.env, "", "eval", set)
			if code != tt.code || !strings.Contains(errs+out, tt.want) {
				t.Fatalf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tt.code, tt.want, out, errs)
			}
			assertNoSecrets(t, out, errs)
		})
	}
}

// A set written for another tool (answer-level expectations) loads and
// says which checks ran at which level.
func TestEvalAnswerChecksNotRun(t *testing.T) {
	p := writeSet(t, "other.yaml", `cases:
  - id: ros2
    question: What is ROS 2?
    expected_modules: [module-1-ros2]
  - id: off-topic
    mode: selected_text_only
    question: What is the capital of France?
    selected_text: ROS 2 nodes talk to each other over topics.
    expected_refuse: true
`)
	code, out, errs := runEvalCLI(t, "eval", p)
	for _, want := range []string{"(answer check: not run: refuse)", "checks: retrieval context, all 2 cases · answer check: not run (1 case expects an answer"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q (exit %d):\n%s\n%s", want, code, out, errs)
		}
	}
	if code != ExitOK {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}
