package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/store/qdrant"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// An end-to-end eval through the real Qdrant and Cohere clients against
// the in-process servers, with simulated latency (300 ms an embed call,
// 50 ms a Qdrant call), on both payload schemas.
func TestEvalAgainstQdrantAndCohereServers(t *testing.T) {
	if testing.Short() {
		t.Skip("simulated latency")
	}
	// grpclog's logger must be set before any gRPC activity (the
	// in-process server logs too); ragscope sets it once, on first use.
	qdrant.SilenceGRPCLogs(nil)
	qs, err := qdranttest.Start(qdranttest.Options{APIKey: "eval-qdrant-key"})
	if err != nil {
		t.Fatal(err)
	}
	defer qs.Close()
	qs.AddCollection(qdranttest.TextbookA())
	qs.AddCollection(qdranttest.TextbookB())
	qs.SetLatency(50 * time.Millisecond)
	co := coheretest.NewServer("eval-cohere-key")
	defer co.Close()
	co.SetLatency(300 * time.Millisecond)

	set := writeSet(t, "servers.yaml", `name: servers
thresholds: {min_hit_at_k: 0.8, min_mrr: 0.6, max_p95_ms: 5000}
cases:
  - {id: dds, question: "Which middleware does ROS 2 use for discovery?", category: ros2, expected_modules: [module-1-ros2], expected_keywords: [DDS]}
  - {id: urdf, question: "How are links and joints of a humanoid described in XML?", category: ros2, expected_doc_paths: [docs/module-1-ros2/05-urdf-humanoids.md]}
  - {id: lidar, question: "How does a simulated LiDAR publish point clouds?", category: sim, expected_modules: [module-2-simulation]}
  - {id: gap, question: "What is the reality gap between simulated and real robots?", category: sim, expected_doc_paths: [module-2-simulation/04-sim-to-real]}
  - {id: costmap, question: "What do costmaps mark around obstacles?", category: isaac, expected_modules: [module-3-isaac]}
  - {id: reward, question: "How does reward shaping help a walking policy?", category: isaac, expected_modules: [module-3-isaac]}
  - {id: filtered, question: "How do I spawn a robot?", category: sim, filters: {modules: [module-2-simulation]}, expected_modules: [module-2-simulation]}
  - {id: sel, question: "Explain", mode: selected_text_only, selected_text: "Topics carry messages.", source_doc_path: docs/module-1-ros2/02-nodes-topics-services.md}
`)
	for _, coll := range []string{qdranttest.CollectionA, qdranttest.CollectionB} {
		t.Run(coll, func(t *testing.T) {
			env := map[string]string{
				"QDRANT_URL": qs.URL(), "QDRANT_API_KEY": "eval-qdrant-key", "QDRANT_COLLECTION": coll,
				"COHERE_API_KEY": "eval-cohere-key", "COHERE_BASE_URL": co.URL,
			}
			var out, errb bytes.Buffer
			app := &App{
				Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: t.TempDir(),
				LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			}
			before := co.Requests()
			qs.ResetCalls()
			start := time.Now()
			code := app.Run(context.Background(), []string{"eval", "--json", set})
			wall := time.Since(start)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
			}
			var rep eval.Report
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: wall %v, hit@k %.2f, MRR %.2f, p95 %.0f ms, %d embed requests", coll, wall, rep.Summary.HitAtK, rep.Summary.MRR, rep.Summary.Latency.P95MS, co.Requests()-before)
			// One batched embed call, then one per case of the latency sample
			// (7 normal cases, all sampled at the default 10).
			if rep.Backend.Backend != "qdrant" || rep.Params.EmbedCalls != 1 || rep.LatencySample == nil ||
				rep.LatencySample.Cases != 7 || co.Requests()-before != 1+rep.LatencySample.Cases {
				t.Errorf("backend %+v, %d embed calls, %d requests, sample %+v", rep.Backend, rep.Params.EmbedCalls, co.Requests()-before, rep.LatencySample)
			}
			for _, c := range rep.Cases {
				if c.Kind == eval.KindRanking && c.Latency.SearchMS < 50 {
					t.Errorf("%s: search %.1f ms does not show the simulated latency", c.ID, c.Latency.SearchMS)
				}
			}
			// The 7 searches are one QueryBatch (the sample's own singles aside).
			if calls := strings.Join(qs.Calls(), " ") + " "; strings.Count(calls, "/QueryBatch ") != 1 || strings.Count(calls, "/Query ") != 7 {
				t.Errorf("search RPCs: %v", qs.Calls())
			}
			if wall > 3*time.Second {
				t.Errorf("wall %v: the eval did not batch and parallelise", wall)
			}
			if strings.Contains(out.String()+errb.String(), "eval-cohere-key") || strings.Contains(out.String()+errb.String(), "eval-qdrant-key") {
				t.Error("an API key was printed")
			}
		})
	}
}
