package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ragscope/retrieval/store/qdrant/qdranttest"
)

// A collection with a BM25 sparse vector beside the dense one is searched
// as the chatbot does (hybrid, RRF k=2) and says so: the header, stats'
// vectors, each hit's arms in the text and in --json (rank and score null
// for an arm that did not return the hit: with the prefetch limit at
// top_k, some of the fused top 10 come from one arm only).
func TestQdrantHybridCollection(t *testing.T) {
	_, _, env := fakes(t)
	e := with(env, "QDRANT_COLLECTION", qdranttest.CollectionHybrid)
	const head = "· hybrid: dense (embed-english-v3.0) + bm25 (qdrant/bm25), RRF k=2"
	code, out, errs := run(t, e, "", "stats")
	if code != ExitOK || !strings.Contains(out, head) ||
		!strings.Contains(out, "Vectors:         dense: dense 1024 cosine (searched)") ||
		!strings.Contains(out, "bm25: sparse, idf modifier, qdrant/bm25 (searched)") {
		t.Fatalf("stats exit %d:\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, e, "", "query", "-k", "3", "Whisper voice commands")
	if code != ExitOK || !strings.Contains(out, head) || !strings.Contains(out, " · fused #1 ") || !strings.Contains(out, "dense #") {
		t.Fatalf("query exit %d:\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, e, "", "query", "--json", "-k", "10", "--prefetch-limit", "10", "how do robots see depth with cameras")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Backend.Search != strings.TrimPrefix(head, "· ") || len(doc.Results) != 10 {
		t.Fatalf("backend %+v, %d results", doc.Backend, len(doc.Results))
	}
	absent := false
	for _, h := range doc.Results {
		if len(h.Arms) != 2 || h.Arms[0].Vector != "dense" || h.Arms[1].Vector != "bm25" {
			t.Fatalf("hit %d arms %+v", h.Rank, h.Arms)
		}
		for _, a := range h.Arms {
			if (a.Rank == nil) != (a.Score == nil) {
				t.Errorf("hit %d: arm %+v half null", h.Rank, a)
			}
			absent = absent || a.Rank == nil
		}
	}
	if !absent {
		t.Errorf("no hit is missing from an arm: the null rank is never shown")
	}
	if !strings.Contains(out, `"rank": null`) {
		t.Errorf("--json has no null arm rank:\n%s", out)
	}
}

// Each fusion setting, as a flag and per setup; a sparse model ragscope
// cannot run is exit 2 naming it and --fusion dense.
func TestQdrantFusionSettings(t *testing.T) {
	_, _, env := fakes(t)
	e := with(env, "QDRANT_COLLECTION", qdranttest.CollectionHybrid)
	for flag, want := range map[string]string{
		"dbsf":   "· hybrid: dense (embed-english-v3.0) + bm25 (qdrant/bm25), DBSF",
		"sparse": "· sparse: bm25 (qdrant/bm25)",
		"rrf":    "RRF k=2",
	} {
		code, out, errs := run(t, e, "", "query", "--fusion", flag, "-k", "3", "Whisper voice commands")
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("--fusion %s: exit %d, want %q:\n%s%s", flag, code, want, out, errs)
		}
	}
	code, out, errs := run(t, e, "", "query", "--rrf-k", "60", "--prefetch-limit", "40", "-k", "3", "Whisper voice commands")
	if code != ExitOK || !strings.Contains(out, "RRF k=60") {
		t.Errorf("--rrf-k 60: exit %d:\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, e, "", "query", "--fusion", "dense", "-k", "3", "Whisper voice commands")
	if code != ExitOK || strings.Contains(out, "· hybrid:") || strings.Contains(out, "fused #") {
		t.Errorf("--fusion dense: exit %d:\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, with(e, "RAGSCOPE_SPARSE_MODEL", "prithivida/Splade_PP_en_v1"), "", "query", "-k", "3", "Whisper")
	if code != ExitConfig || !strings.Contains(errs, "prithivida/Splade_PP_en_v1") || !strings.Contains(errs, "--fusion dense") {
		t.Errorf("SPLADE: exit %d:\n%s%s", code, out, errs)
	}
}

// --expect on a hybrid collection says which arm lost the chunk: its
// rank in each arm and in the fusion, then the cut.
func TestQdrantHybridExpect(t *testing.T) {
	_, _, env := fakes(t)
	e := with(env, "QDRANT_COLLECTION", qdranttest.CollectionHybrid)
	code, out, errs := run(t, e, "", "query", "-k", "3",
		"--expect", "docs/module-2-simulation/01-gazebo-basics.md", "--expect", "docs/module-4-vla/02-voice-commands.md", "Whisper voice commands")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		", bm25: no query word in the chunk, fused #", // Gazebo's page has no word of the question
		", cut by top_k 3",
		"expected docs/module-4-vla/02-voice-commands.md dense #4, bm25 #1, fused #1, in the results at #1 (0.700)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	// The arms place the chunk in the fused ranking itself, which counts
	// the near-duplicates the list leaves out: its fused rank is the -k
	// that reaches it, not the list's rank.
	if m := regexp.MustCompile(`fused #(\d+), cut by top_k 3; \d+ near-duplicates? above it left out of the list, so -k (\d+) reaches it`).FindStringSubmatch(out); m == nil || m[1] != m[2] {
		t.Errorf("the fused rank is not the -k that reaches the chunk (%q):\n%s", m, out)
	}
}

const hybridSet = `cases:
  - question: Whisper voice commands
    expected_doc_paths: [docs/module-4-vla/02-voice-commands.md]
  - question: how do robots see depth with cameras
    expected_doc_paths: [docs/module-3-isaac/02-isaac-ros.md]
  - question: physics friction in Gazebo worlds
    expected_doc_paths: [docs/module-2-simulation/01-gazebo-basics.md]
  - question: What does the costmap mark around obstacles?
    expected_doc_paths: [docs/module-3-isaac/03-nav2.md]
`

// eval on a hybrid collection reports hit@k and MRR of each arm alone
// beside the fused figures (the arms' rankings come back with the fused
// query): here the dense arm alone misses a case BM25 and the fusion find.
func TestQdrantHybridEvalArms(t *testing.T) {
	_, _, env := fakes(t)
	e := with(env, "QDRANT_COLLECTION", qdranttest.CollectionHybrid)
	set := writeSet(t, "hybrid.yaml", hybridSet)
	code, out, errs := run(t, e, "", "eval", "-k", "3", set)
	want := "  each arm alone: dense hit@k 0.750 · MRR 0.750; bm25 hit@k 1.000 · MRR 1.000; fused hit@k 1.000 · MRR 1.000\n"
	if code != ExitOK || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want %q:\n%s%s", code, want, out, errs)
	}
	code, out, errs = run(t, e, "", "eval", "--json", "-k", "3", set)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Summary struct {
			Arms []struct {
				Vector string  `json:"vector"`
				HitAtK float64 `json:"hit_at_k"`
				MRR    float64 `json:"mrr"`
			} `json:"arms"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if a := doc.Summary.Arms; len(a) != 2 || a[0].Vector != "dense" || a[0].HitAtK != 0.75 || a[1].Vector != "bm25" || a[1].MRR != 1 {
		t.Fatalf("summary arms %+v", a)
	}
	// A dense collection has no arms (it misses a case: exit 4).
	code, out, _ = run(t, env, "", "eval", "-k", "3", set)
	if !strings.Contains(out, "Overall (4 ranking cases of 4)") || strings.Contains(out, "each arm alone") {
		t.Fatalf("dense collection: exit %d:\n%s", code, out)
	}
}

// Fusion is a setting like any other, per setup: eval --setup dense --vs
// hybrid compares the dense arm alone with the fusion, paired.
func TestQdrantEvalDenseVsHybridSetups(t *testing.T) {
	_, _, env := fakes(t)
	dir := t.TempDir()
	toml := "[setups.dense]\nretrieval.fusion = \"dense\"\n[setups.hybrid]\nretrieval.fusion = \"rrf\"\n"
	if err := os.WriteFile(filepath.Join(dir, "ragscope.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	e := with(env, "QDRANT_COLLECTION", qdranttest.CollectionHybrid, "__DIR", dir)
	set := writeSet(t, "hybrid.yaml", hybridSet)
	code, out, errs := run(t, e, "", "eval", "-k", "3", "--setup", "dense", "--vs", "hybrid", set)
	if code != ExitOK {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{"A dense   0.750  0.750", "B hybrid  1.000  1.000", "hybrid vs dense: paired over 4 cases", "case-2  miss    1"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}

// The local index's hybrid mode takes the same fusion settings, so an
// author tries hybrid on the book before building the collection.
func TestLocalHybridFusionSettings(t *testing.T) {
	code, out, errs := run(t, nil, "", "--local-search", "hybrid", "--fusion", "rrf", "--rrf-k", "60", "query", "-k", "3", "How do ROS 2 nodes communicate?")
	if code != ExitOK || !strings.Contains(out, "· hybrid: cosine + BM25, RRF k=60") || !strings.Contains(out, " · fused #1 ") {
		t.Fatalf("rrf: exit %d:\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, nil, "", "--local-search", "hybrid", "--fusion", "dbsf", "query", "--json", "-k", "3", "How do ROS 2 nodes communicate?")
	if code != ExitOK || !strings.Contains(out, `"search": "hybrid: cosine + BM25, DBSF"`) || !strings.Contains(out, `"vector": "bm25"`) {
		t.Fatalf("dbsf: exit %d:\n%s%s", code, out, errs)
	}
	code, _, errs = run(t, nil, "", "--local-search", "hybrid", "--fusion", "dense", "query", "-k", "3", "nodes")
	if code != ExitConfig || !strings.Contains(errs, "--local-search embedder") {
		t.Fatalf("dense: exit %d: %s", code, errs)
	}
}
