package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// query --explain on an index of a provider's vectors takes apart the
// score its hybrid search computed, reciprocal rank fusion (k 60) of the
// cosine and BM25 plus the title match: each side's rank and part, the
// title's, adding up to the hit's score, the fusion named.
func TestExplainOfAProviderIndexAddsUp(t *testing.T) {
	env, _, idx := cohereIndex(t, 3, 4)
	question := "actuator 2 joint 3 torque control"
	code, out, errs := run(t, env, "", "query", "--index", idx, "-k", "3", "--explain", "--json", question)
	if code != ExitOK {
		t.Fatalf("query: exit %d\n%s\n%s", code, out, errs)
	}
	var q QueryJSON
	if err := json.Unmarshal([]byte(out), &q); err != nil || len(q.Results) == 0 {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, r := range q.Results {
		e := r.Explain
		if e == nil || e.Fusion == nil || len(e.Fusion.Arms) != 2 {
			t.Fatalf("%s: explanation %+v", r.ChunkID, e)
		}
		if !strings.Contains(e.Fusion.Name, "RRF (k 60)") {
			t.Errorf("%s: fusion named %q", r.ChunkID, e.Fusion.Name)
		}
		sum := *e.Fusion.Title
		for _, a := range e.Fusion.Arms {
			sum += *a.Contribution
		}
		if math.Abs(sum-r.Score) > 1e-6 || math.Abs(e.Score-r.Score) > 1e-6 {
			t.Errorf("%s: parts add up to %.6f (explained %.6f), the hit scored %.6f", r.ChunkID, sum, e.Score, r.Score)
		}
	}
	code, out, errs = run(t, env, "", "query", "--index", idx, "-k", "3", "--explain", question)
	if code != ExitOK || !strings.Contains(out, "(RRF (k 60) of cosine and BM25 + title match)") || !strings.Contains(out, "bm25 arm ") {
		t.Errorf("text: exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out, "0.8×cosine") {
		t.Errorf("the explanation names the offline blend:\n%s", out)
	}
}
