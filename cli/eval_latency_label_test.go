package cli

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// caseRow matches a case row of the eval table: the MS ALONE column is a
// number, "batched" or "-", then the result.
var caseRow = regexp.MustCompile(`(?m)^\S+\s+\S+\s+(?:yes|no|-)\s+\S+\s+\S+\s+\S+\s+\S+\s+(\d+\.\d|batched|-)\s+(?:PASS|MISS|FAIL|ERROR)`)

// The per-case and per-category latencies are labelled like the overall
// p95: a time only for cases run alone (the sample), "batched" for the
// others, and category p95 over the cases run alone.
func TestEvalTextLabelsBatchedLatency(t *testing.T) {
	code, out, errs := run(t, nil, "", "eval")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := regexp.MustCompile(`\((\d+) cases run singly`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no latency sample line:\n%s", out)
	}
	sampled, _ := strconv.Atoi(m[1])
	timed, batched := 0, 0
	for _, r := range caseRow.FindAllStringSubmatch(out, -1) {
		switch r[1] {
		case "batched":
			batched++
		case "-":
		default:
			timed++
		}
	}
	if timed != sampled || batched == 0 {
		t.Errorf("%d rows timed (want the %d run alone), %d batched:\n%s", timed, sampled, batched, out)
	}
	for _, want := range []string{"MS ALONE", "P95 MS ALONE"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, errs = run(t, nil, "", "eval", "--latency-sample", "0")
	if code != ExitOK {
		t.Fatalf("--latency-sample 0: exit %d: %s", code, errs)
	}
	for _, r := range caseRow.FindAllStringSubmatch(out, -1) {
		if r[1] != "batched" && r[1] != "-" {
			t.Errorf("a batched case shows a time of its own: %q", r[0])
		}
	}
	if !strings.Contains(out, "P95 MS BATCHED") {
		t.Errorf("category p95 not labelled batched:\n%s", out)
	}
}
