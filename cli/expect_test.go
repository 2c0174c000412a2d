package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/store/qdrant"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

const jointsQ = "how do I describe a robot's joints?"

// expectJSON runs query --json with args and returns the document.
func expectJSON(t *testing.T, env map[string]string, args ...string) QueryJSON {
	t.Helper()
	code, out, errs := run(t, env, "", append([]string{"query", "--json"}, args...)...)
	if code != ExitOK && code != ExitNoResults {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return doc
}

func oneExpected(t *testing.T, doc QueryJSON) retrieval.Expected {
	t.Helper()
	if len(doc.Expected) != 1 {
		t.Fatalf("want 1 expected entry, got %+v", doc.Expected)
	}
	return doc.Expected[0].Expected
}

// Each cut reason of the demo, reached on purpose.
func TestExpectCutsDemo(t *testing.T) {
	const urdfLinks = "https://physical-ai.example.org/textbook/docs/module-1-ros2/urdf-for-humanoids#links-and-joints"
	for _, tt := range []struct {
		name   string
		args   []string
		cut    string
		detail string
	}{
		{"in the results", []string{"--expect", "docs/module-1-ros2/05-urdf-humanoids.md"}, retrieval.CutNone, "in the results at #1"},
		{"without docs/ prefix", []string{"--expect", "module-1-ros2/05-urdf-humanoids.md"}, retrieval.CutNone, "in the results at #1"},
		{"top_k", []string{"--expect", "docs/module-1-ros2/01-what-is-ros2.md"}, retrieval.CutTopK, "cut by top_k 5"},
		{"filter", []string{"--module", "module-2-simulation", "--expect", urdfLinks}, retrieval.CutFilter, "filtered out by module=module-2-simulation"},
		{"threshold", []string{"--threshold", "0.2", "--expect", urdfLinks}, retrieval.CutThreshold, "below the score threshold 0.20"},
		{"rerank", []string{"--rerank", "bm25", "--expect", "docs/intro.md"}, retrieval.CutRerank, "moved out by the reranker"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The ranks and cuts of the hybrid search.
			doc := expectJSON(t, map[string]string{"RAGSCOPE_LOCAL_SEARCH": "hybrid"}, append(tt.args, jointsQ)...)
			e := oneExpected(t, doc)
			if e.Cut != tt.cut || !strings.Contains(e.Detail, tt.detail) {
				t.Fatalf("cut %q detail %q, want %q / %q", e.Cut, e.Detail, tt.cut, tt.detail)
			}
			if e.Rank < 1 || e.ExactRank < 1 || e.Score == nil || e.PointID == "" {
				t.Fatalf("rank, score or point id missing: %+v", e)
			}
			if tt.cut == retrieval.CutNone {
				// The score is the one the query's own search gave.
				if r := doc.Results[0]; r.ChunkID != e.PointID || r.Score != *e.Score {
					t.Fatalf("expected %s %.6f, results[0] %s %.6f", e.PointID, *e.Score, r.ChunkID, r.Score)
				}
			}
			if tt.cut == retrieval.CutTopK && e.Rank <= 5 {
				t.Fatalf("cut by top_k at rank %d", e.Rank)
			}
		})
	}
}

func TestExpectTextUnderResults(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "--expect", "docs/module-1-ros2/01-what-is-ros2.md", jointsQ)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	i, j := strings.Index(out, " 5. ["), strings.Index(out, "Expected sources:")
	if i < 0 || j < i {
		t.Fatalf("expected sources not under the results:\n%s", out)
	}
	if !strings.Contains(out, "expected docs/module-1-ros2/01-what-is-ros2.md ranked #") || !strings.Contains(out, "), cut by top_k 5") {
		t.Fatalf("no sentence:\n%s", out)
	}
}

func TestExpectBadRef(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "--expect", "docs/module-1-ros2/urdf-humanoids.md", jointsQ)
	if code != ExitConfig {
		t.Fatalf("exit %d, want 2: %s", code, errs)
	}
	if !strings.Contains(errs, "not in the collection") || !strings.Contains(errs, "closest doc paths: docs/module-1-ros2/05-urdf-humanoids.md") {
		t.Fatalf("message: %s", errs)
	}
	if out != "" {
		t.Fatalf("printed results for a bad REF:\n%s", out)
	}
	code, _, errs = run(t, nil, "", "query", "--expect", "/textbook/docs/module-1-ros2/urdf-for-humanoids#no-such-section", jointsQ)
	if code != ExitConfig || !strings.Contains(errs, "no chunk of that page has section #no-such-section") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, _, errs = run(t, nil, "", "query", "--expect", " ", jointsQ)
	if code != ExitUsage {
		t.Fatalf("empty REF: exit %d: %s", code, errs)
	}
	code, _, errs = run(t, nil, "", "query", "--selected-text", "x", "--expect", "docs/intro.md", jointsQ)
	if code != ExitUsage {
		t.Fatalf("selected text: exit %d: %s", code, errs)
	}
}

// qdrantTop returns the query's top k point ids from the fake Qdrant.
func qdrantTop(t *testing.T, env map[string]string, q string, k int) []HitJSON {
	t.Helper()
	doc := expectJSON(t, env, "--no-dedup", "-k", strconv.Itoa(k), q)
	if len(doc.Results) != k {
		t.Fatalf("want %d results, got %d", k, len(doc.Results))
	}
	return doc.Results
}

// Qdrant: the expected chunk's exact rank, an approximate miss told apart
// from a top_k cut, and a duplicate.
func TestExpectQdrant(t *testing.T) {
	qs, _, env := fakes(t)
	const q = "How do publishers and subscribers exchange messages?"
	// Points 12, 16 and 20 tie (equal texts), then 15.
	top := qdrantTop(t, env, q, 4)
	if top[0].ChunkID != "12" || top[1].ChunkID != "16" || top[3].ChunkID != "15" {
		t.Fatalf("the fixture changed: %+v", top)
	}

	t.Run("top_k with the rank counted", func(t *testing.T) {
		qs.ResetCalls()
		doc := expectJSON(t, env, "--no-dedup", "-k", "2", "--explain=false", "--expect", top[3].ChunkID, q)
		e := oneExpected(t, doc)
		if e.Cut != retrieval.CutTopK || e.Rank != 4 || e.ExactRank != 4 || *e.Score != top[3].Score {
			t.Fatalf("%+v", e)
		}
		// One search and one batch beside it (lookup and ranking).
		if calls := qs.Calls(); countCalls(calls, qc.Points_Query_FullMethodName) != 1 || countCalls(calls, qc.Points_QueryBatch_FullMethodName) != 1 {
			t.Fatalf("want one search and one batch: %v", calls)
		}
	})
	t.Run("approximate miss", func(t *testing.T) {
		id, _ := strconv.ParseUint(top[1].ChunkID, 10, 64)
		c := qdranttest.TextbookA()
		for i := range c.Points {
			if c.Points[i].ID == id {
				c.Points[i].Unreachable = true
			}
		}
		qs.AddCollection(c)
		defer qs.AddCollection(qdranttest.TextbookA())
		doc := expectJSON(t, env, "--no-dedup", "-k", "3", "--expect", top[1].ChunkID, q)
		e := oneExpected(t, doc)
		if e.Cut != retrieval.CutApproximate || e.ExactRank != 2 || e.Rank != 2 || e.Detail != "missed by approximate search (an exact search ranks it within the 3 searched)" {
			t.Fatalf("%+v", e)
		}
		// --exact finds it; --ann-check names it.
		doc = expectJSON(t, env, "--no-dedup", "-k", "3", "--exact", "--expect", top[1].ChunkID, q)
		if e := oneExpected(t, doc); e.Cut != retrieval.CutNone || doc.Results[1].ChunkID != top[1].ChunkID {
			t.Fatalf("exact search: %+v, results %+v", e, doc.Results)
		}
		qs.ResetCalls()
		doc = expectJSON(t, env, "--no-dedup", "-k", "3", "--ann-check", q)
		a := doc.ANNCheck
		if a == nil || !a.Approximate || a.K != 3 || len(a.Missed) != 1 || a.Missed[0].PointID != top[1].ChunkID || a.Missed[0].ExactRank != 2 {
			t.Fatalf("ann check: %+v", a)
		}
		if a.Recall < 0.66 || a.Recall > 0.67 {
			t.Fatalf("recall %v, want 2/3", a.Recall)
		}
		if n := countCalls(qs.Calls(), qc.Points_Query_FullMethodName); n != 2 {
			t.Fatalf("%d searches, want 2 (approximate, exact): %v", n, qs.Calls())
		}
		code, out, errs := run(t, env, "", "query", "--no-dedup", "-k", "3", "--ann-check", q)
		if code != ExitOK || !strings.Contains(out, "ANN recall@3 0.67: the approximate search missed 1 of the exact top 3: index misses (raise hnsw_ef or m)") ||
			!strings.Contains(out, "missed exact #2") {
			t.Fatalf("exit %d: %s\n%s", code, errs, out)
		}
	})
	t.Run("duplicate", func(t *testing.T) {
		// 9001 is a copy of 12 (same text and hash): dedup folds it into #1.
		c := qdranttest.TextbookA()
		for _, p := range c.Points {
			if p.ID == 12 {
				dup := p
				dup.ID = 9001
				c.Points = append(c.Points, dup)
			}
		}
		qs.AddCollection(c)
		defer qs.AddCollection(qdranttest.TextbookA())
		e := oneExpected(t, expectJSON(t, env, "-k", "5", "--expect", "9001", q))
		if e.Cut != retrieval.CutDuplicate || e.Detail != "folded into a duplicate (#1)" || e.PointID != "9001" || e.Rank != 4 {
			t.Fatalf("%+v", e)
		}
	})
	t.Run("doc path and bad ref", func(t *testing.T) {
		e := oneExpected(t, expectJSON(t, env, "--expect", top[0].DocPath, q))
		if e.Cut != retrieval.CutNone || e.PointID != top[0].ChunkID {
			t.Fatalf("%+v", e)
		}
		code, _, errs := run(t, env, "", "query", "--expect", "docs/module-9/nothing.md", q)
		if code != ExitConfig || !strings.Contains(errs, "closest doc paths: docs/") {
			t.Fatalf("exit %d: %s", code, errs)
		}
	})
}

func countCalls(calls []string, method string) int {
	n := 0
	for _, c := range calls {
		if c == method {
			n++
		}
	}
	return n
}

// BenchmarkExpect measures whole runs of ragscope query against the
// in-process Qdrant with 50 ms on every call (and none on the embedder):
// plain, with --expect by doc path and by point id, and with --ann-check.
// ratio is the time over the plain query's (budgets: --expect ≤ 1.4×,
// --ann-check at most one more round trip). --expect runs as users get
// it, explained (--explain is on by default with it); "-diagnosis" rows
// measure the diagnosis alone (--explain=false) beside it.
// BenchmarkExplainQdrant adds the embedder's latency.
func BenchmarkExpect(b *testing.B) {
	qs, _, env := benchFakes(b)
	qs.SetLatency(50 * time.Millisecond)
	const q = "How do publishers and subscribers exchange messages?"
	benchRatio(b, env, q, []struct {
		name string
		args []string
	}{
		{"plain", nil},
		{"expect-doc-path", []string{"--expect", "docs/module-3-isaac/04-reinforcement-learning.md"}},
		{"expect-point-id", []string{"--expect", "111"}},
		{"expect-two", []string{"--expect", "111", "--expect", "docs/module-1-ros2/05-urdf-humanoids.md"}},
		{"expect-doc-path-diagnosis", []string{"--explain=false", "--expect", "docs/module-3-isaac/04-reinforcement-learning.md"}},
		{"ann-check", []string{"--ann-check"}},
	})
}

func runB(b *testing.B, env map[string]string, args ...string) (int, string, string) {
	b.Helper()
	var out, errb bytes.Buffer
	app := &App{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: b.TempDir(),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	code := app.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

const whyNotSet = `name: whynot
cases:
  - id: topk-miss
    question: "how do I describe a robot's joints?"
    top_k: 3
    expect: {doc_paths: [docs/module-1-ros2/01-what-is-ros2.md]}
  - id: gone
    question: "how do I describe a robot's joints?"
    expect: {doc_paths: [docs/module-9/nothing.md]}
  - id: empty-filter
    question: "how do I describe a robot's joints?"
    filters: {modules: [module-9]}
    expect: {doc_paths: [docs/module-1-ros2/05-urdf-humanoids.md]}
  - id: hit
    question: "how do I describe a robot's joints?"
    expect: {doc_paths: [docs/module-1-ros2/05-urdf-humanoids.md]}
  - id: module-miss
    question: "how do I describe a robot's joints?"
    top_k: 3
    expect: {modules: [module-4-vla]}
`

// Every missed eval case says where its expected source went, on its own
// MISS row and in JSON; a filter that leaves nothing says so.
func TestEvalSaysWhereExpectedWent(t *testing.T) {
	set := writeSet(t, "whynot.yaml", whyNotSet)
	_, out, errs := runEvalCLI(t, "eval", set)
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = line
		}
	}
	for id, want := range map[string]string{
		"topk-miss":    "MISS no relevant hit in the top 3 (#1 was docs/module-1-ros2/05-urdf-humanoids.md); expected docs/module-1-ros2/01-what-is-ros2.md ranked #58 (0.037), cut by top_k 3; 1 near-duplicate above it left out of the list, so -k 59 reaches it",
		"gone":         "expected docs/module-9/nothing.md not in the collection",
		"empty-filter": "filter module=module-9 leaves 0 points; expected docs/module-1-ros2/05-urdf-humanoids.md ranked #1 (0.226), filtered out by module=module-9",
		"module-miss":  "; expected module module-4-vla ranked #15 (0.084), cut by top_k 3",
	} {
		if !strings.Contains(rows[id], want) {
			t.Errorf("%s row lacks %q:\n%s\n%s", id, want, rows[id], errs)
		}
	}
	if strings.Contains(rows["hit"], "expected") {
		t.Errorf("a passing case explains itself: %s", rows["hit"])
	}
	_, out, _ = runEvalCLI(t, "eval", "--json", set)
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	c := rep.Cases[0]
	if len(c.Expected) != 1 || c.Expected[0].Cut != retrieval.CutTopK || c.Expected[0].Rank != 58 || c.Expected[0].DuplicatesAbove != 1 || c.Expected[0].ExactRank != 59 {
		t.Fatalf("topk-miss JSON: %+v", c.Expected)
	}
	if fp := rep.Cases[2].FilterPoints; fp == nil || *fp != 0 {
		t.Fatalf("filter_points: %v", fp)
	}
	if rep.Cases[3].Expected != nil {
		t.Fatalf("hit explained: %+v", rep.Cases[3].Expected)
	}
}

// eval --ann-check against Qdrant tells an index miss (a point the
// approximate search cannot reach) from a model miss, in one more batched
// call per search batch, and the missed case says its source was missed
// by approximate search.
func TestEvalANNCheckQdrant(t *testing.T) {
	qs, _, env := fakes(t)
	const q = "How do publishers and subscribers exchange messages?"
	top := qdrantTop(t, env, q, 1)
	set := writeSet(t, "ann.yaml", `name: ann
cases:
  - id: index-miss
    question: "`+q+`"
    top_k: 1
    expect: {urls: ["`+top[0].URL+`"]}
  - id: model-miss
    question: "`+q+`"
    top_k: 1
    expect: {doc_paths: [docs/module-3-isaac/04-reinforcement-learning.md]}
`)
	c := qdranttest.TextbookA()
	for i := range c.Points {
		if strconv.FormatUint(c.Points[i].ID, 10) == top[0].ChunkID {
			c.Points[i].Unreachable = true
		}
	}
	qs.AddCollection(c)
	qs.ResetCalls()
	code, out, errs := run(t, env, "", "eval", "--latency-sample", "0", "--ann-check", set)
	if code != ExitCheck {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{
		"ANN check: recall@k 0.000 over 2 cases · 1 miss is an index miss (they pass with exact search): raise hnsw_ef or m; the other 1 is a model or chunking miss (exact search misses it too)\n",
		"index misses: index-miss\n",
		"model or chunking misses (exact search misses them too): model-miss\n",
		"expected " + top[0].URL + " ranked #1",
		"ranked #1 (",
		"missed by approximate search (an exact search ranks it within the 1 searched)",
		"expected docs/module-3-isaac/04-reinforcement-learning.md ranked #",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// One approximate and one exact batch for the set's one search batch
	// (then the misses' own lookups).
	calls := qs.Calls()
	firstBatches := 0
	for _, c := range calls {
		if c == qc.Points_QueryBatch_FullMethodName {
			firstBatches++
		}
	}
	if firstBatches < 2 {
		t.Fatalf("calls: %v", calls)
	}
}

// On a quantized collection --ann-check also compares the approximate
// search with rescoring on and off, in the same batch.
func TestANNCheckQuantized(t *testing.T) {
	qs, _, env := fakes(t)
	c := qdranttest.TextbookA()
	c.Quantized = true
	qs.AddCollection(c)
	qs.ResetCalls()
	doc := expectJSON(t, env, "--no-dedup", "-k", "5", "--ann-check", "How does Gazebo simulate physics?")
	qz := doc.ANNCheck.Quantization
	if qz == nil || qz.RescoreOn != 1 || qz.RescoreOff >= 1 || !strings.Contains(qz.Applied, "default") {
		t.Fatalf("quantization check: %+v", qz)
	}
	if calls := qs.Calls(); countCalls(calls, qc.Points_QueryBatch_FullMethodName) != 1 || countCalls(calls, qc.Points_Query_FullMethodName) != 1 {
		t.Fatalf("want one search and one batch: %v", calls)
	}
	code, out, _ := run(t, env, "", "query", "--no-dedup", "--ann-check", "How does Gazebo simulate physics?")
	if code != ExitOK || !strings.Contains(out, "quantized collection: recall@5 1.00 with rescoring, ") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// eval --ann-check: the searches without rescoring ride in the exact
	// batch.
	set := writeSet(t, "q.yaml", "name: q\ncases:\n  - question: How does Gazebo simulate physics?\n    expect: {doc_paths: [docs/module-2-simulation/01-gazebo-basics.md]}\n")
	qs.ResetCalls()
	code, out, errs := run(t, env, "", "eval", "--latency-sample", "0", "--ann-check", set)
	if code != ExitOK || !strings.Contains(out, "quantized collection: recall@k 1.000 with rescoring, ") {
		t.Fatalf("eval exit %d: %s\n%s", code, errs, out)
	}
	if n := countCalls(qs.Calls(), qc.Points_QueryBatch_FullMethodName); n != 2 {
		t.Fatalf("%d batches, want 2 (approximate, exact + no rescoring): %v", n, qs.Calls())
	}
	// Not quantized: no such line.
	qs.AddCollection(qdranttest.TextbookA())
	if doc := expectJSON(t, env, "--ann-check", "How does Gazebo simulate physics?"); doc.ANNCheck.Quantization != nil {
		t.Fatalf("%+v", doc.ANNCheck.Quantization)
	}
}

// strictQdrant is the fakes' environment with QDRANT_URL on an in-process
// Qdrant of opts (a server that refuses something) holding textbook A.
func strictQdrant(t *testing.T, opts qdranttest.Options) map[string]string {
	t.Helper()
	qdrant.SilenceGRPCLogs(nil)
	opts.APIKey = testQdrantKey
	qs, err := qdranttest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(qs.Close)
	qs.AddCollection(qdranttest.TextbookA())
	_, _, env := fakes(t)
	return with(env, "QDRANT_URL", qs.URL())
}

// A Qdrant that refuses exact search (strict mode) still explains what it
// can, from the approximate index, with a note; a refused exact query is
// a configuration error.
func TestExpectServerRefusesExact(t *testing.T) {
	env := strictQdrant(t, qdranttest.Options{RefuseExact: true})
	const q = "How do publishers and subscribers exchange messages?"
	doc := expectJSON(t, env, "--no-dedup", "-k", "2", "--ann-check", "--expect", "15", q)
	e := oneExpected(t, doc)
	if e.Cut != retrieval.CutTopK || e.Rank != 4 || doc.ANNCheck != nil || len(doc.DiagnosisNotes) != 1 || !strings.Contains(doc.DiagnosisNotes[0], "refused exact search") {
		t.Fatalf("%+v ann %+v notes %v", e, doc.ANNCheck, doc.DiagnosisNotes)
	}
	code, out, errs := run(t, env, "", "query", "--expect", "15", q)
	if code != ExitOK || !strings.Contains(out, "Note: the server refused exact search") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if code, _, errs := run(t, env, "", "query", "--exact", q); code != ExitConfig {
		t.Fatalf("--exact refused: exit %d: %s", code, errs)
	}
}

// The LangChain-like schema: nested doc path key, UUID point ids.
func TestExpectQdrantNestedSchema(t *testing.T) {
	_, _, env := fakes(t)
	env = with(env, "QDRANT_COLLECTION", qdranttest.CollectionB)
	const q = "How do publishers and subscribers exchange messages?"
	top := qdrantTop(t, env, q, 4)
	for _, ref := range []string{top[3].ChunkID, top[3].DocPath} {
		e := oneExpected(t, expectJSON(t, env, "--no-dedup", "-k", "2", "--expect", ref, q))
		if e.Score == nil || e.Rank < 1 {
			t.Fatalf("%s: %+v", ref, e)
		}
	}
	e := oneExpected(t, expectJSON(t, env, "--no-dedup", "-k", "2", "--expect", top[3].ChunkID, q))
	if e.Cut != retrieval.CutTopK || e.Rank != 4 || e.PointID != top[3].ChunkID {
		t.Fatalf("%+v", e)
	}
}

// A Qdrant that refuses Count still explains its misses; the report says
// why the filters' point counts are missing instead of dropping them
// silently.
func TestEvalServerRefusesCount(t *testing.T) {
	env := strictQdrant(t, qdranttest.Options{RefuseCount: true})
	set := writeSet(t, "count.yaml", `name: count
cases:
  - id: filtered
    question: "How do publishers and subscribers exchange messages?"
    filters: {modules: [module-9]}
    expect: {doc_paths: [docs/module-1-ros2/02-nodes-topics.md]}
`)
	code, out, errs := run(t, env, "", "eval", set)
	if code == ExitConfig || !strings.Contains(out, "note: filter point counts not shown: the store refused Count") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	code, out, errs = run(t, env, "", "eval", "--json", set)
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: not JSON: %v\n%s", code, err, errs)
	}
	if len(rep.Notes) != 1 || rep.Cases[0].FilterPoints != nil {
		t.Fatalf("notes %v, filter points %v", rep.Notes, rep.Cases[0].FilterPoints)
	}
}

// A page that exists is found by its doc path whatever the search mode:
// when no chunk of it holds a word of the question (BM25 scores it 0, so
// the search leaves it out) --expect says so and exits 0, in the text,
// the JSON and an eval MISS row; only a page that does not exist is "not
// in the collection".
func TestExpectPageWithoutAMatchingWord(t *testing.T) {
	const capstone = "docs/capstone/index.md"
	bm25 := map[string]string{"RAGSCOPE_LOCAL_SEARCH": "bm25"}
	code, out, errs := run(t, bm25, "", "query", "--expect", capstone, "--expect", capstone+"#teams-and-timeline", jointsQ)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"  - expected docs/capstone/index.md: 4 chunks, none matches a word of the question\n",
		"  - expected docs/capstone/index.md#teams-and-timeline: 1 chunk, which matches no word of the question\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	e := oneExpected(t, expectJSON(t, bm25, "--expect", capstone, jointsQ))
	if e.Cut != retrieval.CutNoMatch || e.Chunks != 4 || !e.Found() || e.Rank != 0 || e.Score != nil {
		t.Errorf("JSON %+v", e)
	}
	// Hybrid: a question with no word of the collection scores nothing.
	e = oneExpected(t, expectJSON(t, map[string]string{"RAGSCOPE_LOCAL_SEARCH": "hybrid"}, "--expect", capstone, "xyzzy plugh"))
	if e.Cut != retrieval.CutNoMatch || e.Chunks != 4 {
		t.Errorf("hybrid: %+v", e)
	}
	// The embedder scores every chunk: the page ranks.
	e = oneExpected(t, expectJSON(t, map[string]string{"RAGSCOPE_LOCAL_SEARCH": "embedder"}, "--expect", capstone, jointsQ))
	if e.Cut != retrieval.CutTopK || e.Rank < 6 {
		t.Errorf("embedder: %+v", e)
	}
	set := writeSet(t, "nomatch.yaml", `name: nomatch
cases:
  - id: capstone
    question: "how do I describe a robot's joints?"
    expect: {doc_paths: [docs/capstone/index.md]}
`)
	_, out, errs = run(t, bm25, "", "eval", set)
	if !strings.Contains(out, "expected docs/capstone/index.md: 4 chunks, none matches a word of the question") || strings.Contains(out, "not in the collection") {
		t.Errorf("eval MISS row:\n%s\n%s", out, errs)
	}
}

// On Qdrant the page of a question that shares no word with it is found
// (a vector search scores every point of the page) and ranked.
func TestExpectQdrantPageWithoutAMatchingWord(t *testing.T) {
	_, _, env := fakes(t)
	doc := expectJSON(t, env, "--expect", "docs/module-4-vla/04-capstone.md", "xyzzy plugh")
	if e := oneExpected(t, doc); !e.Found() || e.Rank < 1 || e.Score == nil || e.Cut == retrieval.CutNoMatch {
		t.Fatalf("%+v", e)
	}
}

// The rank --expect gives is the one the results list shows, said once:
// a near-duplicate above the chunk that dedup leaves out is not counted,
// and the sentence says it was left out (and which -k reaches a chunk
// top_k cut); the best chunk is placed as the list places it ("chunk
// 2/6"), its point id named as one.
func TestExpectRankIsTheListRank(t *testing.T) {
	const links = "docs/module-1-ros2/05-urdf-humanoids.md#links-and-joints"
	code, out, errs := run(t, nil, "", "query", "-k", "15", "--expect", links, jointsQ)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"\n10. [0.186] URDF for Humanoids - Links and Joints\n    module-1-ros2 / urdf-humanoids · chunk 2/6\n",
		"duplicate of #8 (similarity 1.00)",
		"  - expected " + links + " in the results at #10 (0.186); 1 near-duplicate above it left out of the list\n" +
			"    best chunk: Links and Joints · chunk 2/6 (point docs/module-1-ros2/05-urdf-humanoids.md#1)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-k 15 output lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = run(t, nil, "", "query", "--expect", links, jointsQ)
	if want := "  - expected " + links + " ranked #10 (0.186), cut by top_k 5; 1 near-duplicate above it left out of the list, so -k 11 reaches it\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	e := oneExpected(t, expectJSON(t, nil, "-k", "11", "--expect", links, jointsQ))
	if e.Cut != retrieval.CutNone || e.Rank != 10 || e.DuplicatesAbove != 1 || e.ExactRank != 11 {
		t.Errorf("-k 11: %+v", e)
	}
	// Without dedup nothing is left out: the rank is the search's.
	e = oneExpected(t, expectJSON(t, nil, "--no-dedup", "--expect", links, jointsQ))
	if e.Rank != 11 || e.DuplicatesAbove != 0 {
		t.Errorf("--no-dedup: %+v", e)
	}
}
