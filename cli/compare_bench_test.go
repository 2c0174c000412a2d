package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/store/qdrant"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// BenchmarkEvalVs measures the budget of `eval --setup A --vs B` (at most
// 1.1× the slower setup's own eval): each setup's own eval of the demo
// set, then both compared in one process. The demo's two local search
// modes (hybrid, BM25) are two local-index setups.
//
//	go test -run '^$' -bench EvalVs -benchtime 20x ./cli/
func BenchmarkEvalVs(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ragscope.toml"), []byte(demoSetups), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, args string }{
		{"A-alone", "eval --setup hybrid --json"},
		{"B-alone", "eval --setup bm25 --json"},
		{"A-vs-B", "eval --setup hybrid --vs bm25 --json"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				app := &App{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: dir,
					LookupEnv: func(string) (string, bool) { return "", false }}
				if code := app.Run(context.Background(), strings.Fields(bc.args)); code != ExitOK {
					b.Fatalf("%s: exit %d", bc.args, code)
				}
			}
		})
	}
}

// BenchmarkEvalVsServers is the same budget with remote setups: two Qdrant
// collections of the in-process server (50 ms a call) embedded by the
// in-process Cohere server (300 ms a call), where the setups' calls
// overlap.
//
//	go test -run '^$' -bench EvalVsServers -benchtime 3x ./cli/
func BenchmarkEvalVsServers(b *testing.B) {
	qdrant.SilenceGRPCLogs(nil)
	qs, err := qdranttest.Start(qdranttest.Options{APIKey: testQdrantKey})
	if err != nil {
		b.Fatal(err)
	}
	defer qs.Close()
	qs.AddCollection(qdranttest.TextbookA())
	qs.AddCollection(qdranttest.TextbookB())
	qs.SetLatency(50 * time.Millisecond)
	co := coheretest.NewServer(testCohereKey)
	defer co.Close()
	co.SetLatency(300 * time.Millisecond)
	env := map[string]string{"QDRANT_URL": qs.URL(), "QDRANT_API_KEY": testQdrantKey, "COHERE_API_KEY": testCohereKey, "COHERE_BASE_URL": co.URL}
	dir := b.TempDir()
	toml := "[setups.a]\nqdrant.collection = \"" + qdranttest.CollectionA + "\"\n\n[setups.b]\nqdrant.collection = \"" + qdranttest.CollectionB + "\"\n"
	if err := os.WriteFile(filepath.Join(dir, "ragscope.toml"), []byte(toml), 0o600); err != nil {
		b.Fatal(err)
	}
	set := filepath.Join(dir, "set.yaml")
	if err := os.WriteFile(set, []byte(`name: servers
cases:
  - {id: dds, question: "Which middleware does ROS 2 use for discovery?", expected_modules: [module-1-ros2]}
  - {id: urdf, question: "How are links and joints of a humanoid described in XML?", expected_doc_paths: [docs/module-1-ros2/05-urdf-humanoids.md]}
  - {id: lidar, question: "How does a simulated LiDAR publish point clouds?", expected_modules: [module-2-simulation]}
  - {id: costmap, question: "What do costmaps mark around obstacles?", expected_modules: [module-3-isaac]}
`), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, args string }{
		{"A-alone", "eval --setup a --json " + set},
		{"B-alone", "eval --setup b --json " + set},
		{"A-vs-B", "eval --setup a --vs b --json " + set},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				app := &App{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: dir,
					LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
				if code := app.Run(context.Background(), strings.Fields(bc.args)); code != ExitOK && code != ExitCheck {
					b.Fatalf("%s: exit %d", bc.args, code)
				}
			}
		})
	}
}
