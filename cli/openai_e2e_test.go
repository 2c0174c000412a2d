package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"ragscope/retrieval/provider/openai/openaitest"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

const testOpenAIKey = "sk-openai-e2e-5d2e"

// openAIFakes is fakes with the OpenAI server as the only embedder.
func openAIFakes(t *testing.T) (*openaitest.Server, map[string]string) {
	t.Helper()
	_, _, env := fakes(t)
	delete(env, "COHERE_API_KEY")
	delete(env, "COHERE_BASE_URL")
	oa := openaitest.NewServer(testOpenAIKey)
	t.Cleanup(oa.Close)
	env["OPENAI_API_KEY"] = testOpenAIKey
	env["OPENAI_BASE_URL"] = oa.URL
	return oa, env
}

func noOpenAIKey(t *testing.T, outs ...string) {
	t.Helper()
	assertNoSecrets(t, outs...)
	for _, s := range outs {
		if strings.Contains(s, testOpenAIKey) {
			t.Fatalf("the OpenAI key was printed:\n%s", s)
		}
	}
}

func TestOpenAIQueryEndToEnd(t *testing.T) {
	oa, env := openAIFakes(t)
	code, out, errs := run(t, env, "", "query", "how do humanoid robots keep their balance")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "openai text-embedding-3-small") {
		t.Fatalf("the header does not name provider and model:\n%s", out)
	}
	// The collection holds 1024-dimensional vectors: the model is asked
	// for that size.
	if got := oa.LastRequest().Dimensions; got != 1024 {
		t.Fatalf("dimensions sent = %d, want 1024", got)
	}
	code, out, errs = run(t, env, "", "query", "--json", "how do humanoid robots keep their balance")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var q QueryJSON
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatal(err)
	}
	if q.Backend.Provider != "openai" || q.Backend.Model != "text-embedding-3-small" || len(q.Results) == 0 {
		t.Fatalf("backend %+v, %d hits", q.Backend, len(q.Results))
	}
	code, out, errs = run(t, env, "", "stats")
	if code != ExitOK || !strings.Contains(out, "openai text-embedding-3-small (1024 dimensions)") {
		t.Fatalf("stats exit %d:\n%s\n%s", code, out, errs)
	}
	noOpenAIKey(t, out, errs)
}

func TestOpenAIQueryFailures(t *testing.T) {
	cases := []struct {
		name  string
		fail  []openaitest.Failure
		env   []string
		args  []string
		code  int
		say   string
		calls int
	}{
		{"401", nil, []string{"OPENAI_API_KEY", "sk-wrong-key"}, nil, ExitBackend, "rejected the API key", 1},
		{"429 then success", []openaitest.Failure{{Status: 429, RetryAfter: "0"}}, nil, nil, ExitOK, "", 2},
		{"persistent 5xx", []openaitest.Failure{{Status: 502}, {Status: 502}, {Status: 502}}, nil, nil, ExitBackend, "unavailable (502)", 3},
		{"HTML answer", []openaitest.Failure{{Raw: "<!doctype html><title>Login</title>", ContentType: "text/html"}}, nil, nil, ExitBackend, "invalid response", 1},
		{"wrong vector size", []openaitest.Failure{{Dim: 5}}, nil, nil, ExitBackend, "makes 1024", 1},
		{"unknown model", nil, nil, []string{"--model", "text-embedding-9"}, ExitConfig, "does not exist", 1},
		{"Cohere model name", nil, nil, []string{"--model", "embed-multilingual-v3.0"}, ExitConfig, "is a Cohere model", 0},
		{"too many dimensions", nil, nil, []string{"--dimensions", "5000"}, ExitConfig, "at most 1536", 0},
		{"collection of another size", nil, []string{"QDRANT_COLLECTION", "small_vectors"}, []string{"--model", "text-embedding-ada-002"}, ExitConfig, "--dimensions 8", 1}, // the check runs beside the embedding; no search is sent
		{"collection of another provider's size", nil, nil, []string{"--model", "text-embedding-ada-002"}, ExitConfig, "(--model, --embedder; 1024 dimensions: no OpenAI model ragscope knows; --embedder cohere with embed-english-v3.0 or embed-multilingual-v3.0)", 1},
		{"unknown embedder flag", nil, nil, []string{"--embedder", "voyage"}, ExitUsage, "unknown embedder", 0},
		{"unknown embedder env", nil, []string{"RAGSCOPE_EMBEDDER", "voyage"}, nil, ExitConfig, "unknown embedder", 0},
		{"gemini without key", nil, nil, []string{"--embedder", "gemini"}, ExitConfig, "--embedder gemini needs GEMINI_API_KEY", 0},
		{"timeout", nil, nil, []string{"--timeout", "100ms"}, ExitBackend, "did not answer", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oa, env := openAIFakes(t)
			oa.Fail(c.fail...)
			if c.name == "timeout" {
				oa.SetLatency(3e9)
			}
			args := append([]string{"query"}, c.args...)
			args = append(args, "how do humanoid robots keep their balance")
			code, out, errs := run(t, with(env, c.env...), "", args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, c.code, out, errs)
			}
			if !strings.Contains(out+errs, c.say) {
				t.Fatalf("output does not say %q:\n%s\n%s", c.say, out, errs)
			}
			if c.calls >= 0 && oa.Requests() != c.calls {
				t.Fatalf("%d embedding calls, want %d", oa.Requests(), c.calls)
			}
			noOpenAIKey(t, out, errs)
		})
	}
}

func TestBothKeysAutoSaysWhichEmbedder(t *testing.T) {
	_, co, env := fakes(t)
	oa := openaitest.NewServer(testOpenAIKey)
	defer oa.Close()
	env = with(env, "OPENAI_API_KEY", testOpenAIKey, "OPENAI_BASE_URL", oa.URL)
	code, out, errs := run(t, env, "", "query", "balance")
	if code != ExitOK || !strings.Contains(errs, "cohere chosen because") || co.Requests() != 1 || oa.Requests() != 0 {
		t.Fatalf("exit %d, cohere %d, openai %d calls\n%s\n%s", code, co.Requests(), oa.Requests(), out, errs)
	}
	code, out, errs = run(t, with(env, "RAGSCOPE_EMBEDDER", "openai"), "", "query", "balance")
	if code != ExitOK || oa.Requests() != 1 || !strings.Contains(out, "openai text-embedding-3-small") {
		t.Fatalf("exit %d, openai %d calls\n%s\n%s", code, oa.Requests(), out, errs)
	}
	noOpenAIKey(t, out, errs)
	_ = qdranttest.CollectionA
}

func TestOpenAIEvalBatchesQuestions(t *testing.T) {
	oa, env := openAIFakes(t)
	set := writeSet(t, "openai.yaml", `name: openai
cases:
  - {id: dds, question: "Which middleware does ROS 2 use for discovery?", expected_modules: [module-1-ros2]}
  - {id: lidar, question: "How does a simulated LiDAR publish point clouds?", expected_modules: [module-2-simulation]}
  - {id: costmap, question: "What do costmaps mark around obstacles?", expected_modules: [module-3-isaac]}
`)
	// No latency sample: its single-question calls race the batch for the
	// cache, and this test counts the batch.
	code, out, errs := run(t, env, "", "eval", "--json", "--latency-sample", "0", set)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var rep struct {
		Summary struct {
			HitAtK float64 `json:"hit_at_k"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if b := oa.BatchSizes(); len(b) != 1 || b[0] != 3 || oa.LastRequest().Dimensions != 1024 {
		t.Fatalf("batches %v, dimensions %d: want one call of 3 at 1024", b, oa.LastRequest().Dimensions)
	}
	if rep.Summary.HitAtK < 0.6 {
		t.Fatalf("hit@k %.2f", rep.Summary.HitAtK)
	}
	noOpenAIKey(t, out, errs)
}

// A local OpenAI-compatible server (Ollama, vLLM) needs only its base URL:
// auto picks OpenAI from it and no Authorization header is sent.
func TestOpenAICompatibleLocalServerNeedsNoKey(t *testing.T) {
	oa, env := openAIFakes(t)
	oa.Key = ""
	delete(env, "OPENAI_API_KEY")
	code, out, errs := run(t, env, "", "query", "how do humanoid robots keep their balance")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "openai text-embedding-3-small") || oa.Requests() != 1 {
		t.Fatalf("header or calls (%d):\n%s", oa.Requests(), out)
	}
}
