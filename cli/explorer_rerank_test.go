package cli

import (
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/ui"
)

// The explorer on the demo with the offline bm25 reranker, as
// `ragscope --rerank bm25` starts it: reranked results with movement and
// both scores, r for the vector order of the same question, and the turn
// compare of the two.
func TestTUIRerankBM25Demo(t *testing.T) {
	opts := tuiOptionsFor(t, map[string]string{"RAGSCOPE_RERANK_MODEL": "BM25", "RAGSCOPE_LOCAL_SEARCH": "hybrid"}) // the hybrid order, which a BM25 rerank moves
	if rs := opts.Rerank; !rs.On || len(rs.Models) != 1 || rs.Models[0] != "bm25" || rs.Candidates != 4 {
		t.Fatalf("rerank setup: %+v", rs)
	}
	d := newTUIDriver(t, opts)
	d.ask("how do ROS 2 nodes communicate?")
	d.until("the reranked results", 10*time.Second, idle)
	v := screen(d.m)
	for _, want := range []string{"rerank bm25 (offline)", "reranked by bm25", "hybrid #1 "} {
		if !strings.Contains(v, want) {
			t.Fatalf("screen lacks %q:\n%s", want, v)
		}
	}
	if st := d.m.Status(); !strings.Contains(st, "5 results") || !strings.Contains(st, " · rerank ") {
		t.Fatalf("status = %q", st)
	}

	d.keys("r")
	d.until("the vector turn", 10*time.Second, func(m ui.Model) bool { return idle(m) && len(m.Turns()) == 2 })
	if turns := d.m.Turns(); turns[0] != turns[1] {
		t.Fatalf("turns %q: the toggle must ask the same question", turns)
	}
	v = screen(d.m)
	if !strings.Contains(v, "rerank off") || strings.Contains(v, "hybrid #") || strings.Contains(d.m.Status(), " · rerank ") {
		t.Fatalf("rerank still on:\n%s", v)
	}
	d.keys("t")
	v = screen(d.m)
	for _, want := range []string{"#2 (on show) against #1", "rerank on→off", "scores: now hybrid score · was bm25 relevance"} {
		if !strings.Contains(v, want) {
			t.Fatalf("turn compare lacks %q:\n%s", want, v)
		}
	}
}

// The explorer with Cohere rerank (the in-process server through the
// real SDK): one rerank call per question with top_k × candidates
// documents; a refused key and a timeout leave the vector results
// showing with the rerank error in the status line.
func TestTUIRerankCohere(t *testing.T) {
	co := coheretest.NewServer(testCohereKey)
	t.Cleanup(co.Close)
	env := map[string]string{"COHERE_API_KEY": testCohereKey, "COHERE_BASE_URL": co.URL, "RAGSCOPE_RERANK_MODEL": "rerank-v3.5", "RAGSCOPE_TIMEOUT": "1s", "RAGSCOPE_LOCAL_SEARCH": "hybrid"}
	opts := tuiOptionsFor(t, env)
	if rs := opts.Rerank; !rs.On || strings.Join(rs.Models, ",") != "rerank-v3.5,bm25" {
		t.Fatalf("rerank setup: %+v", rs)
	}
	d := newTUIDriver(t, opts)
	d.ask("what is a URDF file?")
	d.until("the reranked results", 10*time.Second, idle)
	reqs := co.Reranks()
	if len(reqs) != 1 || len(reqs[0].Documents) != 20 || *reqs[0].TopN != 5 {
		t.Fatalf("rerank calls %d (want 1 with 20 documents, top_n 5)", len(reqs))
	}
	v := screen(d.m)
	for _, want := range []string{"rerank cohere rerank-v3.5 (1 call per question)", "reranked by rerank-v3.5"} {
		if !strings.Contains(v, want) {
			t.Fatalf("screen lacks %q:\n%s", want, v)
		}
	}
	// Each hit says where the store put it: in its top k or below it.
	if !strings.Contains(v, "hybrid #") && !strings.Contains(v, "candidate #") {
		t.Fatalf("no hit shows its store rank:\n%s", v)
	}

	co.Fail(coheretest.Failure{Status: 401})
	d.ask("what is a URDF link?")
	d.until("the refused rerank", 10*time.Second, idle)
	st := d.m.Status()
	t.Logf("401: %s", st)
	if !strings.Contains(st, "Rerank failed, showing the hybrid order") || !strings.Contains(st, "401") || !strings.Contains(st, "5 results") {
		t.Fatalf("status = %q", st)
	}
	if v := screen(d.m); !strings.Contains(v, "✗ ") || !strings.Contains(v, "rerank failed: hybrid order") || !strings.Contains(v, "Results · 5 hits") {
		t.Fatalf("screen:\n%s", v)
	}

	co.SetLatency(3 * time.Second)
	d.ask("how do ROS 2 nodes communicate?")
	d.until("the timed-out rerank", 10*time.Second, idle)
	co.SetLatency(0)
	st = d.m.Status()
	t.Logf("timeout: %s", st)
	if !strings.Contains(st, "Rerank failed, showing the hybrid order") || !strings.Contains(st, "results") {
		t.Fatalf("status = %q", st)
	}
	if len(d.m.Turns()) != 3 {
		t.Fatalf("turns %q", d.m.Turns())
	}
	assertNoSecrets(t, screen(d.m), d.m.Status())
}

// Rate limited past the retries (three 429s): the vector results, and
// the rerank error saying so in the status line.
func TestTUIRerankCohereRateLimited(t *testing.T) {
	co := coheretest.NewServer(testCohereKey)
	t.Cleanup(co.Close)
	env := map[string]string{"COHERE_API_KEY": testCohereKey, "COHERE_BASE_URL": co.URL, "RAGSCOPE_RERANK_MODEL": "rerank-v3.5", "RAGSCOPE_LOCAL_SEARCH": "hybrid"}
	d := newTUIDriver(t, tuiOptionsFor(t, env))
	co.Fail(coheretest.Failure{Status: 429}, coheretest.Failure{Status: 429}, coheretest.Failure{Status: 429})
	d.ask("what is a URDF file?")
	d.until("the rate-limited rerank", 15*time.Second, idle)
	st := d.m.Status()
	t.Logf("429: %s", st)
	if !strings.Contains(st, "Rerank failed, showing the hybrid order") || !strings.Contains(st, "429") || !strings.Contains(st, "after 3 attempts") {
		t.Fatalf("status = %q", st)
	}
	if v := screen(d.m); !strings.Contains(v, "Results · 5 hits · rerank failed: hybrid order") {
		t.Fatalf("screen:\n%s", v)
	}
	// The next question reranks again.
	d.ask("what is a URDF link?")
	d.until("the reranked results", 10*time.Second, idle)
	if st := d.m.Status(); strings.Contains(st, "failed") || !strings.Contains(screen(d.m), "reranked by rerank-v3.5") {
		t.Fatalf("after the rate limit: %q", st)
	}
}
