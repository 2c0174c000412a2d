package cli

import (
	"encoding/json"
	"fmt"
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

// --expect on such an index places the expected chunk where the fused
// ranking puts it (its rank and score are those of a deeper query), not
// by a search restricted to its page, which would rank it among its own
// page's chunks alone; the explanation and the suggestion agree.
func TestExpectOnAProviderIndexRanksInTheFusion(t *testing.T) {
	env, _, idx := cohereIndex(t, 3, 4)
	question := "actuator 2 joint 3 torque control"
	code, out, errs := run(t, env, "", "query", "--index", idx, "-k", "50", "--json", question)
	if code != ExitOK {
		t.Fatalf("query: exit %d\n%s\n%s", code, out, errs)
	}
	var all QueryJSON
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	// The best chunk of page 0, and its place in the whole ranking.
	want, wantScore := 0, 0.0
	for i, r := range all.Results {
		if strings.Contains(r.DocPath, "000-page") {
			want, wantScore = i+1, r.Score
			break
		}
	}
	if want <= 1 {
		t.Fatalf("page 0 ranks #%d: pick a question it is not first for", want)
	}
	code, out, errs = run(t, env, "", "query", "--index", idx, "-k", "1", "--expect", "docs/000-page.md", "--json", question)
	if code != ExitOK {
		t.Fatalf("--expect: exit %d\n%s\n%s", code, out, errs)
	}
	var q QueryJSON
	if err := json.Unmarshal([]byte(out), &q); err != nil || len(q.Expected) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	e := q.Expected[0]
	if e.Score == nil {
		t.Fatalf("expected chunk %+v has no score", e.Expected)
	}
	if e.Rank != want || math.Abs(*e.Score-wantScore) > 1e-9 {
		t.Errorf("expected chunk ranked #%d (%.6f), the fused ranking has it #%d (%.6f)", e.Rank, *e.Score, want, wantScore)
	}
	if e.Explain == nil || math.Abs(e.Explain.Score-wantScore) > 1e-9 {
		t.Errorf("explained %+v, want score %.6f", e.Explain, wantScore)
	}
	if s := e.Explain.Suggestions; len(s) == 0 || !strings.Contains(strings.Join(s, "\n"), fmt.Sprintf("it ranks #%d", want)) {
		t.Errorf("suggestions %q, want the rank #%d", s, want)
	}
}
