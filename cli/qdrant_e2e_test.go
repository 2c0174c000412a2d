package cli

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/store/qdrant"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

const (
	testQdrantKey = "qdrant-key-e2e-7f3a"
	testCohereKey = "cohere-key-e2e-9b1c"
)

// fakes starts the in-process Qdrant and Cohere servers and returns the
// environment that points ragscope at them.
func fakes(t *testing.T) (*qdranttest.Server, *coheretest.Server, map[string]string) {
	t.Helper()
	// Set grpc-go's logger before any server runs: setting it later races
	// with the server's own logging.
	qdrant.SilenceGRPCLogs(nil)
	qs, err := qdranttest.Start(qdranttest.Options{APIKey: testQdrantKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(qs.Close)
	qs.AddCollection(qdranttest.TextbookA())
	qs.AddCollection(qdranttest.TextbookB())
	qs.AddCollection(qdranttest.TextbookHybrid())
	small := qdranttest.Collection{Name: "small_vectors", Dim: 8, Points: []qdranttest.Point{{ID: 1, Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}, Payload: map[string]*qc.Value{"text": qc.NewValueString("x")}}}}
	qs.AddCollection(small)
	co := coheretest.NewServer(testCohereKey)
	t.Cleanup(co.Close)
	env := map[string]string{
		"QDRANT_URL": qs.URL(), "QDRANT_API_KEY": testQdrantKey, "QDRANT_COLLECTION": qdranttest.CollectionA,
		"COHERE_API_KEY": testCohereKey, "COHERE_BASE_URL": co.URL,
	}
	return qs, co, env
}

func with(env map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func assertNoSecrets(t *testing.T, outputs ...string) {
	t.Helper()
	for _, s := range outputs {
		if strings.Contains(s, testQdrantKey) || strings.Contains(s, testCohereKey) {
			t.Fatalf("an API key was printed:\n%s", s)
		}
	}
}

func TestQdrantStatsAndQueryBothSchemas(t *testing.T) {
	qs, co, env := fakes(t)
	for _, coll := range []string{qdranttest.CollectionA, qdranttest.CollectionB} {
		t.Run(coll, func(t *testing.T) {
			e := with(env, "QDRANT_COLLECTION", coll)
			code, out, errs := run(t, e, "", "stats", "--json")
			if code != ExitOK {
				t.Fatalf("stats exit %d: %s", code, errs)
			}
			var st StatsJSON
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatal(err)
			}
			if st.Stats.Status != "ready" || st.Stats.Points != 160 || st.Stats.VectorSize != 1024 || st.Backend.Kind != "qdrant" {
				t.Fatalf("stats = %+v", st)
			}
			if st.Stats.Mapping["text"] == "" || st.Stats.Mapping["url"] == "" {
				t.Errorf("mapping not detected: %v", st.Stats.Mapping)
			}
			code, out, errs = run(t, e, "", "query", "--json", "-k", "5", "--module", "module-1-ros2", "how do ROS 2 nodes communicate?")
			if code != ExitOK {
				t.Fatalf("query exit %d: %s", code, errs)
			}
			var doc QueryJSON
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Count == 0 || doc.Backend.Model != "embed-english-v3.0" {
				t.Fatalf("query = %+v", doc)
			}
			for _, r := range doc.Results {
				if r.Module != "module-1-ros2" || r.Text == "" || !strings.HasPrefix(r.URL, "https://") {
					t.Errorf("hit %+v", r)
				}
			}
			assertNoSecrets(t, out, errs)
		})
	}
	// Read-only: nothing but query, scroll, count, collection info and list.
	for _, m := range qs.Calls() {
		if !slices.Contains(qdranttest.ReadOnlyMethods, m) {
			t.Errorf("non read-only RPC sent: %s", m)
		}
	}
	if co.Requests() == 0 {
		t.Error("Cohere was never called")
	}
}

func TestQdrantErrors(t *testing.T) {
	_, co, env := fakes(t)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"bad qdrant key", with(env, "QDRANT_API_KEY", "wrong"), []string{"query", "ros"}, ExitBackend, "QDRANT_API_KEY"},
		{"bad cohere key", with(env, "COHERE_API_KEY", "wrong"), []string{"query", "ros"}, ExitBackend, "Cohere rejected the API key (401). Check COHERE_API_KEY."},
		{"missing collection stats", with(env, "QDRANT_COLLECTION", "nope"), []string{"stats"}, ExitBackend, ""},
		{"missing collection query", with(env, "QDRANT_COLLECTION", "nope"), []string{"query", "ros"}, ExitBackend, "run your ingestion first"},
		{"unreachable", with(env, "QDRANT_URL", "http://127.0.0.1:1"), []string{"query", "ros"}, ExitBackend, "Cannot reach Qdrant"},
		{"vector size", with(env, "QDRANT_COLLECTION", "small_vectors"), []string{"query", "ros"}, ExitConfig, "1024"},
		{"missing key config", with(env, "COHERE_API_KEY", "", "CO_API_KEY", ""), []string{"query", "ros"}, ExitConfig, "COHERE_API_KEY"},
		{"bad url", with(env, "QDRANT_URL", "ftp://x"), []string{"query", "ros"}, ExitConfig, "QDRANT_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.env, "", tt.args...)
			if code != tt.code || !strings.Contains(errs+out, tt.want) {
				t.Fatalf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tt.code, tt.want, out, errs)
			}
			assertNoSecrets(t, out, errs)
		})
	}
	// Retry exhaustion: three 503s in a row, then a clear error.
	co.Fail(coheretest.Failure{Status: 503}, coheretest.Failure{Status: 503}, coheretest.Failure{Status: 503})
	code, _, errs := run(t, env, "", "query", "a question never asked before")
	if code != ExitBackend || !strings.Contains(strings.ToLower(errs), "cohere") {
		t.Fatalf("retry exhaustion: exit %d, %s", code, errs)
	}
}

func TestQdrantCancelMidRequest(t *testing.T) {
	_, co, env := fakes(t)
	co.SetLatency(10 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	var out, errb strings.Builder
	app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: t.TempDir(),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	start := time.Now()
	code := app.Run(ctx, []string{"query", "slow question"})
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("cancellation took %s", took)
	}
	if code != ExitInterrupted || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("a cancelled query: exit %d, %q", code, errb.String())
	}
	// --timeout bounds each call too.
	start = time.Now()
	code, _, errs := run(t, env, "", "--timeout", "200ms", "query", "another slow question")
	if time.Since(start) > 3*time.Second || code != ExitBackend {
		t.Fatalf("timeout: exit %d after %s: %s", code, time.Since(start), errs)
	}
}

func TestQdrantSelectedTextNeedsNoServer(t *testing.T) {
	env := map[string]string{"QDRANT_URL": "http://127.0.0.1:1", "QDRANT_COLLECTION": "x"}
	code, out, errs := run(t, env, "", "query", "--json", "--selected-text", "Some pasted text.", "explain")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `"selected_text_only"`) {
		t.Fatalf("out = %s", out)
	}
}
