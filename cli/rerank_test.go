package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"ragscope/retrieval/provider/cohere/coheretest"
)

func TestQueryRerankBM25(t *testing.T) {
	// The hybrid order, which a BM25 rerank moves.
	hybrid := map[string]string{"RAGSCOPE_LOCAL_SEARCH": "hybrid"}
	code, out, errs := run(t, hybrid, "", "query", "--rerank", "bm25", "-k", "4", "how do I describe a robot's joints?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"· rerank bm25 (offline)", "rerank bm25: 16 candidates → 4", " 1. [0.", "· hybrid #", "rerank ", "Fell out of the hybrid top 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run(t, hybrid, "", "query", "--json", "--rerank", "bm25", "-k", "4", "how do I describe a robot's joints?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Rerank == nil || doc.Rerank.Model != "bm25" || doc.Rerank.Candidates != 16 || doc.TimingsMS.Rerank <= 0 {
		t.Fatalf("rerank object %+v timings %+v", doc.Rerank, doc.TimingsMS)
	}
	for _, h := range doc.Results {
		if h.VectorRank < 1 || h.VectorScore == nil || h.RerankScore == nil || *h.RerankScore != h.Score || h.Movement == "" {
			t.Fatalf("hit %d lacks its ranks: %+v", h.Rank, h)
		}
	}
	// Without --rerank the document keeps its old shape.
	_, out, _ = run(t, nil, "", "query", "--json", "what is URDF?")
	if strings.Contains(out, "vector_rank") || strings.Contains(out, `"rerank"`) {
		t.Fatalf("rerank fields without --rerank:\n%s", out)
	}
}

func TestQueryRerankCohere(t *testing.T) {
	co := coheretest.NewServer("co-rerank-key")
	defer co.Close()
	env := map[string]string{"COHERE_API_KEY": "co-rerank-key", "COHERE_BASE_URL": co.URL, "RAGSCOPE_LOCAL_SEARCH": "hybrid"}
	code, out, errs := run(t, env, "", "query", "--rerank", "rerank-v3.5", "-k", "3", "--rerank-candidates", "5", "what is a URDF file?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	reqs := co.Reranks()
	if len(reqs) != 1 || len(reqs[0].Documents) != 15 || *reqs[0].TopN != 3 {
		t.Fatalf("rerank calls %d (want 1 with 15 documents, top_n 3)", len(reqs))
	}
	if !strings.Contains(out, "rerank cohere rerank-v3.5 (1 call per question)") || !strings.Contains(out, "rerank rerank-v3.5: 15 candidates → 3") {
		t.Fatalf("header or parameters:\n%s", out)
	}

	co.Fail(coheretest.Failure{Status: 401})
	code, out, errs = run(t, env, "", "query", "--rerank", "rerank-v3.5", "-k", "3", "what is a URDF file?")
	if code != ExitOK {
		t.Fatalf("a refused rerank must still show the vector results: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Rerank failed, results in hybrid order: Cohere rejected the API key (401)") || !strings.Contains(out, " 1. [hybrid #1 ") {
		t.Fatalf("output:\n%s", out)
	}
	if strings.Contains(out+errs, "co-rerank-key") {
		t.Fatal("the key leaked")
	}
}

func TestEvalRerankBM25(t *testing.T) {
	// Against the embedder's order: the hybrid's already has BM25 in it.
	code, out, errs := run(t, nil, "", "--local-search", "embedder", "eval", "--rerank", "bm25", "--latency-sample", "0")
	if code != ExitOK {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"· rerank bm25 (offline)", "Rerank bm25 against the vector order", "hit@1 ", "ΔMS", "FIXED", "rerank fixed "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run(t, nil, "", "--local-search", "embedder", "eval", "--json", "--rerank", "bm25", "--latency-sample", "0")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Summary struct {
			HitAtK float64 `json:"hit_at_k"`
		} `json:"summary"`
		Cases  []json.RawMessage `json:"cases"`
		Rerank *struct {
			Model  string `json:"model"`
			Vector struct {
				HitAtK float64 `json:"hit_at_k"`
			} `json:"vector"`
			VectorCases []json.RawMessage `json:"vector_cases"`
			Diff        struct {
				Fixed []string `json:"fixed"`
			} `json:"diff"`
		} `json:"rerank"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Rerank == nil || rep.Rerank.Model != "bm25" || len(rep.Rerank.VectorCases) != len(rep.Cases) || len(rep.Rerank.Diff.Fixed) == 0 {
		t.Fatalf("rerank section: %+v", rep.Rerank)
	}
	if rep.Rerank.Vector.HitAtK >= rep.Summary.HitAtK {
		t.Errorf("the demo's BM25 rerank should lift hit@k: vector %.3f, reranked %.3f", rep.Rerank.Vector.HitAtK, rep.Summary.HitAtK)
	}
}

func TestEvalRerankOutageExits3(t *testing.T) {
	co := coheretest.NewServer("the-right-key")
	defer co.Close()
	env := map[string]string{"COHERE_API_KEY": "a-wrong-key", "COHERE_BASE_URL": co.URL}
	code, out, errs := run(t, env, "", "eval", "--rerank", "rerank-v3.5", "--latency-sample", "0")
	if code != ExitBackend || !strings.Contains(errs, "the reranker failed on every case") || !strings.Contains(errs, "401") {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	if !strings.Contains(out, "rerank failed on ") || strings.Contains(out+errs, "a-wrong-key") {
		t.Fatalf("output:\n%s", out)
	}
}

// Qdrant + Cohere embed + Cohere rerank, all in-process: the same Cohere
// server embeds and reranks (one rerank call per question), and bm25
// reranks a Qdrant collection from each question's candidates.
func TestQdrantQueryRerank(t *testing.T) {
	_, co, env := fakes(t)
	code, out, errs := run(t, env, "", "query", "--json", "--rerank", "rerank-v3.5", "-k", "3", "what is ROS 2?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(co.Reranks()) != 1 || doc.Rerank == nil || doc.Rerank.Error != "" || doc.Rerank.Searched != 12 || len(doc.Results) == 0 {
		t.Fatalf("%d rerank calls, rerank %+v, %d results", len(co.Reranks()), doc.Rerank, len(doc.Results))
	}
	if r := doc.Results[0]; r.RerankScore == nil || r.VectorRank < 1 {
		t.Fatalf("first result lacks its ranks: %+v", r)
	}
	code, out, errs = run(t, env, "", "query", "--rerank", "bm25", "-k", "3", "what is ROS 2?")
	if code != ExitOK || !strings.Contains(out, "rerank bm25 (offline)") || !strings.Contains(out, "· vector #") {
		t.Fatalf("bm25 on Qdrant: exit %d: %s\n%s", code, errs, out)
	}
	assertNoSecrets(t, out, errs)
}

// The order a rerank reorders is named after how the store ranked: the
// demo's BM25 (the default) or hybrid search, or vector similarity for
// the embedder alone (and Qdrant); JSON says which in params.ranking and
// backend.ranking.
func TestRerankNamesTheStoresOrder(t *testing.T) {
	code, out, errs := run(t, nil, "", "eval", "--rerank", "bm25", "--latency-sample", "0")
	if code != ExitOK || !strings.Contains(out, "Rerank bm25 against the BM25 order") {
		t.Fatalf("eval: exit %d %s\n%s", code, errs, out)
	}
	for mode, want := range map[string]string{"hybrid": `"ranking": "hybrid"`, "bm25": `"ranking": "bm25"`, "embedder": ""} {
		code, out, errs := run(t, nil, "", "--local-search", mode, "query", "--json", "--rerank", "bm25", "what is ROS 2?")
		if code != ExitOK {
			t.Fatalf("%s: exit %d %s", mode, code, errs)
		}
		if want == "" && strings.Contains(out, `"ranking"`) || want != "" && !strings.Contains(out, want) {
			t.Errorf("%s: ranking in the JSON, want %q:\n%s", mode, want, out)
		}
	}
}
