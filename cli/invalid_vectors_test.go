package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/openai/openaitest"
)

// zeroServer answers every embedding call of its provider with vectors
// of 1024 zeros (the fake collection's size).
func zeroServer(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A provider that answers a vector of zeros answered invalidly: exit 3,
// the provider named, no hits scored 0.000.
func TestZeroQueryVectorExits3(t *testing.T) {
	zeros := "[" + strings.TrimSuffix(strings.Repeat("0,", 1024), ",") + "]"
	_, _, base := fakes(t)
	delete(base, "COHERE_API_KEY")
	delete(base, "COHERE_BASE_URL")
	for _, c := range []struct {
		name string
		env  []string
		say  string
	}{
		{"cohere", []string{"COHERE_API_KEY", testCohereKey, "COHERE_BASE_URL",
			zeroServer(t, `{"id":"x","response_type":"embeddings_by_type","embeddings":{"float":[`+zeros+`]}}`)},
			"Cohere at "},
		{"openai", []string{"OPENAI_API_KEY", testOpenAIKey, "OPENAI_BASE_URL",
			zeroServer(t, `{"object":"list","model":"text-embedding-3-small","data":[{"object":"embedding","index":0,"embedding":`+zeros+`}]}`) + "/v1"},
			"The embedding server at "},
		{"gemini", []string{"GEMINI_API_KEY", testGeminiKey, "GEMINI_BASE_URL",
			zeroServer(t, `{"embeddings":[{"values":`+zeros+`}]}`)},
			"Gemini answered"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, with(base, c.env...), "", "query", "how do humanoid robots keep their balance")
			if code != ExitBackend {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitBackend, out, errs)
			}
			if !strings.Contains(errs, c.say) || !strings.Contains(errs, "answered with an invalid response (HTTP 200): an embedding of all zeros") {
				t.Fatalf("stderr does not name the provider and the fault:\n%s", errs)
			}
			if strings.Contains(out, "0.000") {
				t.Fatalf("hits were shown:\n%s", out)
			}
			noOpenAIKey(t, out, errs)
			if strings.Contains(out+errs, testGeminiKey) {
				t.Fatal("the Gemini key was printed")
			}
		})
	}
}

// A rerank answer with relevance scores outside 0..1 is an invalid
// rerank: the store's order with the documented note, no rerank score.
func TestRerankScoreOutOfRangeFallsBack(t *testing.T) {
	co := coheretest.NewServer("co-rerank-key")
	defer co.Close()
	co.TamperRerank(func(int, float64) float64 { return 1e39 })
	env := map[string]string{"COHERE_API_KEY": "co-rerank-key", "COHERE_BASE_URL": co.URL, "RAGSCOPE_LOCAL_SEARCH": "hybrid"}
	code, out, errs := run(t, env, "", "query", "--rerank", "rerank-v3.5", "-k", "3", "--rerank-threshold", "0.9", "what is a URDF file?")
	if code != ExitOK {
		t.Fatalf("an invalid rerank must still show the store's results: exit %d: %s\n%s", code, errs, out)
	}
	if !strings.Contains(out, "Rerank failed, results in hybrid order: Cohere at "+co.URL+" answered with an invalid response (HTTP 200): relevance score 1e+39 for document ") ||
		!strings.Contains(out, ", outside 0..1") ||
		!strings.Contains(out, " 1. [hybrid #1 ") {
		t.Fatalf("output:\n%s", out)
	}
	if strings.Contains(out, "1000000000000") || strings.Contains(out, "[1e+39") {
		t.Fatalf("the bad score is shown as a score:\n%s", out)
	}
	code, out, errs = run(t, env, "", "query", "--json", "--rerank", "rerank-v3.5", "-k", "3", "what is a URDF file?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Rerank == nil || !strings.Contains(doc.Rerank.Error, "outside 0..1") || len(doc.Results) == 0 {
		t.Fatalf("rerank %+v, %d results", doc.Rerank, len(doc.Results))
	}
	for _, h := range doc.Results {
		if h.RerankScore != nil {
			t.Fatalf("hit %d carries rerank score %v", h.Rank, *h.RerankScore)
		}
	}
}

// A 429 whose Retry-After is past the --timeout: one request, and the
// message says so (not "after 3 attempts").
func TestRateLimitRetryAfterHourSaysNotRetried(t *testing.T) {
	oa, env := openAIFakes(t)
	oa.Fail(openaitest.Failure{Status: 429, RetryAfter: "3600"})
	code, out, errs := run(t, env, "", "query", "balance")
	if code != ExitBackend || oa.Requests() != 1 {
		t.Fatalf("exit %d after %d requests\n%s\n%s", code, oa.Requests(), out, errs)
	}
	if !strings.Contains(errs, "(429): asked to wait 1 h, past the 30 s timeout; not retried") || strings.Contains(errs, "attempts") {
		t.Fatalf("stderr:\n%s", errs)
	}
	noOpenAIKey(t, out, errs)
}
