package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval/store/qdrant/qdranttest"
)

const (
	voiceQ   = "how does the robot turn spoken words into text?"
	voiceRef = "docs/module-4-vla/02-voice-commands.md"
)

// rawQuery runs query --json and returns the document as maps, to check
// the JSON keys themselves.
func rawQuery(t *testing.T, env map[string]string, args ...string) map[string]any {
	t.Helper()
	code, out, errs := run(t, env, "", append([]string{"query", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return doc
}

func hasKeys(t *testing.T, what string, v any, keys ...string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is %T, not an object", what, v)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %q: %v", what, k, m)
		}
	}
	return m
}

// --expect explains the expected source and the #1 hit by default, in
// the JSON shape; --explain=false turns it off; --explain alone
// explains every hit.
func TestQueryExplainJSON(t *testing.T) {
	doc := rawQuery(t, nil, "-k", "1", "--expect", voiceRef, voiceQ)
	exp := doc["expected"].([]any)[0].(map[string]any)
	x := hasKeys(t, "expected[0].explain", exp["explain"], "terms", "missing", "suggestions", "scorer")
	terms := x["terms"].([]any)
	for _, tm := range terms {
		hasKeys(t, "term", tm, "term", "in_text", "in_title", "count", "contribution")
	}
	miss := x["missing"].([]any)
	if len(miss) == 0 {
		t.Fatal("no missing words")
	}
	m := hasKeys(t, "missing", miss[0], "term", "nearest")
	hasKeys(t, "nearest", m["nearest"].([]any)[0], "word", "similarity")
	sugg := x["suggestions"].([]any)
	if !slices.Contains(sugg, any("-k 2 would include it (it ranks #2)")) {
		t.Errorf("suggestions %v", sugg)
	}
	res := doc["results"].([]any)
	hasKeys(t, "results[0].explain", res[0].(map[string]any)["explain"], "terms", "missing")

	off := rawQuery(t, nil, "-k", "1", "--explain=false", "--expect", voiceRef, voiceQ)
	if _, ok := off["expected"].([]any)[0].(map[string]any)["explain"]; ok {
		t.Error("--explain=false still explains")
	}
	all := rawQuery(t, nil, "-k", "3", "--explain", voiceQ)
	for i, r := range all["results"].([]any) {
		hasKeys(t, "results explain", r.(map[string]any)["explain"], "terms")
		_ = i
	}
	plain := rawQuery(t, nil, "-k", "3", voiceQ)
	if _, ok := plain["results"].([]any)[0].(map[string]any)["explain"]; ok {
		t.Error("a plain query explains")
	}
}

func TestQueryExplainText(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "-k", "1", "--expect", voiceRef, voiceQ)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"Why not #1? " + voiceRef + " (bm25 0.187)",
		"  spoken: in text ×1 · +0.105 (idf 2.97 × tf 1.28, length 0.59)",
		"  robot: absent; nearest in the chunk: humanoid (0.66)",
		"  turn: absent; the chunk has \"turns\" (another form, not matched)",
		"  → -k 2 would include it (it ranks #2)",
		"#1 has \"robot\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Collection text in an explanation reaches the terminal sanitised.
func TestExplainTextIsSanitised(t *testing.T) {
	docs := filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{
		"evil.md":  "---\ntitle: \"Evil \x1b]0;pwned\x07 title\"\n---\n\n## Torque \x1b[2J\x1b[31mControl\n\nMotors \x1b]52;c;ZXZpbA==\x07 make torque torque.\n",
		"other.md": "# Gears\n\n## Ratio\n\nA gear ratio trades speed for torque in motors.\n",
	} {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(page), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := run(t, nil, "", "--docs", docs, "query", "-k", "1", "--explain", "--expect", "docs/other.md", "torque motors")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(out+errs, "\x1b\x07") {
		t.Fatalf("a control sequence reached the terminal:\n%q", out)
	}
	if !strings.Contains(out, "Why #1? evil - Torque Control") || !strings.Contains(out, "beside #1 evil - Torque Control") {
		t.Fatalf("no explanation:\n%s", out)
	}
}

// embedCounter is a provider fake's count of requests and batch sizes.
type embedCounter interface {
	Requests() int
	BatchSizes() []int
}

// On a Qdrant collection with a provider's vectors (Cohere, OpenAI),
// each question word's share of the dense score comes from one batched
// embed call beside the question's: two embed calls in all, the chunks'
// vectors never embedded.
func TestExplainLeaveOneOutOneCall(t *testing.T) {
	for _, provider := range []string{"cohere", "openai"} {
		t.Run(provider, func(t *testing.T) {
			qs, co, env := fakes(t)
			var calls embedCounter = co
			if provider == "openai" {
				oa, oenv := openAIFakes(t)
				calls, env = oa, with(oenv, "QDRANT_URL", env["QDRANT_URL"])
				qs = nil
			}
			q := "How do publishers and subscribers exchange messages?"
			if qs != nil {
				qs.ResetCalls()
			}
			doc := rawQuery(t, env, "-k", "2", "--explain", "--expect", "docs/module-3-isaac/04-reinforcement-learning.md", q)
			if n := calls.Requests(); n != 2 {
				t.Fatalf("%d embed calls, want 2 (the question, then its variants in one)", n)
			}
			// The query's search, the diagnosis's batch beside it, and one
			// batch that scores the explained chunks for the question and
			// each variant.
			if qs != nil {
				if c := qs.Calls(); countCalls(c, qc.Points_Query_FullMethodName) != 1 || countCalls(c, qc.Points_QueryBatch_FullMethodName) != 2 {
					t.Fatalf("want one search and two batches: %v", c)
				}
			}
			// The 4 variants (one per word left out), with the question
			// unless the cache already holds its vector.
			if sizes := calls.BatchSizes(); !slices.Contains(sizes, 5) && !slices.Contains(sizes, 4) {
				t.Errorf("batch sizes %v, want one of 4 or 5", sizes)
			}
			x := hasKeys(t, "expected explain", doc["expected"].([]any)[0].(map[string]any)["explain"], "attribution", "terms")
			att := x["attribution"].([]any)
			if len(att) != 4 {
				t.Fatalf("attribution %v, want a share for each of 4 words", att)
			}
			hasKeys(t, "attribution", att[0], "word", "delta")
			if x["scorer"] != "dense" {
				t.Errorf("scorer %v", x["scorer"])
			}
			for _, r := range doc["results"].([]any) {
				e := hasKeys(t, "hit explain", r.(map[string]any)["explain"], "attribution")
				a := e["attribution"].([]any)
				if len(a) != 4 || a[0].(map[string]any)["delta"].(float64) <= 0 {
					t.Errorf("hit attribution %v: want 4 words, the first carrying a share", a)
				}
			}
		})
	}
}

// fusionOf reads an explain object's fusion: method, k and each arm's
// contribution, which add up to the fused score.
func fusionOf(t *testing.T, what string, x map[string]any) (string, float64, []map[string]any) {
	t.Helper()
	f := hasKeys(t, what+".fusion", x["fusion"], "method", "arms")
	var arms []map[string]any
	sum := 0.0
	for _, a := range f["arms"].([]any) {
		am := hasKeys(t, what+" arm", a, "label", "vector", "rank", "score", "contribution")
		c, ok := am["contribution"].(float64)
		if !ok {
			t.Fatalf("%s: arm %v has no contribution", what, am)
		}
		sum += c
		arms = append(arms, am)
	}
	if s := x["score"].(float64); math.Abs(sum-s) > 1e-6 {
		t.Errorf("%s: the arms' parts add up to %.6f, the fused score is %.6f", what, sum, s)
	}
	if x["scorer"] != "hybrid" {
		t.Errorf("%s: scorer %v", what, x["scorer"])
	}
	return f["method"].(string), sum, arms
}

// On a hybrid collection the score is taken apart by arm: each arm's
// rank and score, its part of the fused score (RRF 1/(k + rank − 1),
// DBSF the normalised score) adding up to the fused score, the BM25
// word table under the bm25 arm and the leave-one-out attribution of the
// dense arm's score (the fused score restricted to the explained chunks
// would say nothing).
func TestExplainHybridQdrantByArm(t *testing.T) {
	_, _, env := fakes(t)
	e := with(env, "QDRANT_COLLECTION", qdranttest.CollectionHybrid)
	code, out, errs := run(t, e, "", "query", "-k", "3", "--explain", "--expect", "docs/module-4-vla/02-voice-commands.md", "Whisper voice commands")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"Why #2? Voice commands with Whisper - Speech recognition (hybrid 0.667)",
		"  dense #1 0.720 → 0.500 · bm25 #5 13.366 → 0.167 · fused 0.667 (RRF k=2)",
		"Why #1? docs/module-4-vla/02-voice-commands.md (hybrid 0.700)",
		"  dense #4 0.720 → 0.200 · bm25 #1 13.569 → 0.500 · fused 0.700 (RRF k=2)",
		"  bm25 arm 13.569, the question's words:\n    whisper: in text ×2 and title\n",
		"  dense arm 0.720 (leave-one-out): ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(dense ") {
		t.Errorf("a fused score is called dense:\n%s", out)
	}
	for _, fusion := range []string{"rrf", "dbsf"} {
		doc := rawQuery(t, e, "-k", "3", "--explain", "--fusion", fusion, "--expect", "docs/module-4-vla/02-voice-commands.md", "Whisper voice commands")
		x := hasKeys(t, "expected[0].explain", doc["expected"].([]any)[0].(map[string]any)["explain"], "fusion", "attribution")
		method, _, arms := fusionOf(t, fusion+" expected", x)
		if method != fusion || arms[0]["label"] != "dense" || arms[1]["label"] != "bm25" {
			t.Errorf("%s: method %q arms %v", fusion, method, arms)
		}
		for i, r := range doc["results"].([]any) {
			rx := r.(map[string]any)["explain"].(map[string]any)
			fusionOf(t, fmt.Sprintf("%s results[%d]", fusion, i), rx)
			if rx["score"].(float64) != r.(map[string]any)["score"].(float64) {
				t.Errorf("%s results[%d]: explained %v, the hit scores %v", fusion, i, rx["score"], r.(map[string]any)["score"])
			}
		}
		if fusion == "rrf" {
			if k := x["fusion"].(map[string]any)["k"]; k != 2.0 {
				t.Errorf("rrf k %v", k)
			}
		}
	}
}

// A local index's hybrid mode with a fusion set fuses its arms as Qdrant
// does, and is taken apart the same way; the BM25 word table's parts add
// up to the bm25 arm's score.
func TestExplainHybridLocalByArm(t *testing.T) {
	code, out, errs := run(t, nil, "", "--local-search", "hybrid", "--fusion", "rrf", "query", "-k", "3", "--expect", voiceRef, voiceQ)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"Why #1? " + voiceRef + " (hybrid 0.833)",
		"  dense #1 0.258 → 0.500 · bm25 #2 0.224 → 0.333 · fused 0.833 (RRF k=2)",
		"  bm25 arm 0.224, the question's words:\n",
		"    spoken: in text ×1 · +0.126 (idf 2.97 × tf 1.28, length 0.59)",
		"  dense arm 0.258 (leave-one-out): spoken carries +0.090",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, fusion := range []string{"rrf", "dbsf"} {
		doc := rawQuery(t, nil, "--local-search", "hybrid", "--fusion", fusion, "-k", "3", "--explain", "--expect", voiceRef, voiceQ)
		for i, r := range doc["results"].([]any) {
			rx := r.(map[string]any)["explain"].(map[string]any)
			_, _, arms := fusionOf(t, fmt.Sprintf("%s results[%d]", fusion, i), rx)
			bm25 := 0.0
			for _, tm := range rx["terms"].([]any) {
				if c, ok := tm.(map[string]any)["contribution"].(float64); ok {
					bm25 += c
				}
			}
			if s, ok := arms[1]["score"].(float64); ok && math.Abs(s-bm25) > 1e-6 {
				t.Errorf("%s results[%d]: the words' parts add up to %.6f, the bm25 arm scores %.6f", fusion, i, bm25, s)
			}
		}
	}
}
