package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run executes ragscope with args in an isolated environment (no real
// environment variables, a temporary working directory) and returns the
// exit code, stdout and stderr.
func run(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	dir := t.TempDir()
	if env == nil {
		env = map[string]string{}
	}
	if d, ok := env["__DIR"]; ok {
		dir = d
	}
	app := &App{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Dir: dir,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	code := app.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

func TestQueryDemo(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "What is ROS 2?")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	if !strings.HasPrefix(out, "ragscope · demo textbook") {
		t.Errorf("header does not name the backend:\n%s", out)
	}
	for _, want := range []string{" 1. [", "https://physical-ai.example.org/textbook/docs/", "embed ", "total "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestQueryJSONSchema(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "--json", "-k", "8", "how do I describe a robot's joints?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.Schema != QuerySchema || doc.Backend.Kind != "demo" || doc.Mode != "normal" {
		t.Errorf("header fields: %+v", doc)
	}
	if doc.Count != len(doc.Results) || doc.Count == 0 || doc.Count > 8 {
		t.Fatalf("count %d, results %d", doc.Count, len(doc.Results))
	}
	for i, r := range doc.Results {
		if r.Rank != i+1 {
			t.Errorf("rank %d at %d", r.Rank, i)
		}
		if i > 0 && r.Score > doc.Results[i-1].Score {
			t.Errorf("not ordered by score at %d", i)
		}
		if r.URL == "" || r.Text == "" || r.DocPath == "" || r.ChunkIndex == nil {
			t.Errorf("result %d lacks fields: %+v", i, r)
		}
	}
	if !doc.Grounded.SufficientContext || !strings.HasPrefix(doc.Grounded.Context, "[Source 1: ") {
		t.Errorf("grounded = %+v", doc.Grounded)
	}
	// The raw JSON keeps the documented key names.
	for _, key := range []string{`"schema"`, `"results"`, `"rank"`, `"score"`, `"url"`, `"timings_ms"`, `"system_instruction"`, `"dropped"`} {
		if !strings.Contains(out, key) {
			t.Errorf("JSON lacks key %s", key)
		}
	}
}

func TestQueryBadInput(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"query", ""}, ExitUsage, "Query cannot be empty"},
		{[]string{"query", "   "}, ExitUsage, "Query cannot be empty"},
		{[]string{"query", "?!? ..."}, ExitUsage, "no letters or digits"},
		{[]string{"query", "-k", "0", "q"}, ExitUsage, "top_k must be between 1 and 100. Got 0"},
		{[]string{"query", "-k", "101", "q"}, ExitUsage, "Got 101"},
		{[]string{"query", "--threshold", "1.5", "q"}, ExitUsage, "threshold must be between 0.0 and 1.0"},
		{[]string{"query"}, ExitUsage, "exactly one QUESTION"},
		{[]string{"query", "--nope", "q"}, ExitUsage, "unknown flag"},
		{[]string{"query", "--source-doc", "x.md", "q"}, ExitUsage, "go with --selected-text"},
		{[]string{"query", "--selected-text", "  ", "q"}, ExitUsage, "Selected text cannot be empty"},
		{[]string{"--backend", "mongo", "stats"}, ExitUsage, "unknown backend"},
	}
	for _, tt := range tests {
		code, _, errs := run(t, nil, "", tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", tt.args, code, errs, tt.code, tt.msg)
		}
		if strings.Contains(errs, "goroutine") || strings.Contains(errs, "panic") {
			t.Errorf("%v: stack trace in output", tt.args)
		}
	}
}

func TestQueryLongQuestionTruncated(t *testing.T) {
	code, out, _ := run(t, nil, "", "query", "--json", strings.Repeat("robot joints ", 400))
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Truncated || doc.OriginalLength < 5000 || len([]rune(doc.Query)) > 1000 {
		t.Fatalf("truncated=%v original=%d len=%d", doc.Truncated, doc.OriginalLength, len(doc.Query))
	}
}

func TestQueryNoResultsExit1(t *testing.T) {
	// A known module and words no chunk has (an unknown module is a usage
	// error: TestUnknownModuleListsKnownOnes).
	code, out, _ := run(t, nil, "", "query", "--module", "module-1-ros2", "zzqxv wqzzyx")
	if code != ExitNoResults {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "No results") {
		t.Errorf("output: %s", out)
	}
}

func TestQueryFilters(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "--json", "-k", "10", "--module", "module-3-isaac", "--module", "module-2-simulation", "simulation")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Results {
		if r.Module != "module-3-isaac" && r.Module != "module-2-simulation" {
			t.Errorf("filter leaked module %q", r.Module)
		}
	}
}

func TestQuerySelectedTextFromStdin(t *testing.T) {
	sel := "Embodiment means that intelligence is shaped by a body acting in the world."
	code, out, errs := run(t, nil, sel, "query", "--json", "--selected-text", "-", "--source-doc", "docs/intro.md", "--source-section", "1.1 Why Physical AI?", "what does this mean?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Mode != "selected_text_only" || doc.Count != 1 || doc.Results[0].ChunkID != "selection" || doc.Results[0].Score != 1 {
		t.Fatalf("doc = %+v", doc)
	}
	if doc.Grounded.Context != sel || !strings.HasPrefix(doc.Grounded.SystemInstruction, "Answer ONLY from the following selected text.") {
		t.Fatalf("grounded = %+v", doc.Grounded)
	}
	if doc.Results[0].URL != "https://physical-ai.example.org/textbook/docs/intro#11-why-physical-ai" {
		t.Errorf("selection citation = %s", doc.Results[0].URL)
	}
}

func TestQueryContextFlag(t *testing.T) {
	code, out, _ := run(t, nil, "", "query", "--context", "What is URDF?")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"System instruction:", "Answer based on the following textbook excerpts.", "[Source 1: ", "~"} {
		if !strings.Contains(out, want) {
			t.Errorf("--context output lacks %q", want)
		}
	}
}

func TestStatsDemo(t *testing.T) {
	code, out, errs := run(t, nil, "", "stats", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc StatsJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Stats.Status != "ready" || doc.Stats.Points < 100 || doc.Stats.VectorSize == 0 || len(doc.Stats.Facets["module"]) < 5 {
		t.Fatalf("stats = %+v", doc.Stats)
	}
}

func TestMissingCredentialsExit2AndKeysNeverPrinted(t *testing.T) {
	env := map[string]string{"QDRANT_URL": "https://example.invalid:6333", "QDRANT_API_KEY": "qd-secret-123", "QDRANT_COLLECTION": "book"}
	code, out, errs := run(t, env, "", "query", "what is ros?")
	if code != ExitConfig || !strings.Contains(errs, "COHERE_API_KEY") {
		t.Fatalf("exit %d, stderr %q; want 2 naming COHERE_API_KEY", code, errs)
	}
	if strings.Contains(out+errs, "qd-secret-123") {
		t.Fatal("API key printed")
	}
	env = map[string]string{"QDRANT_URL": "localhost", "COHERE_API_KEY": "co-secret-456"}
	code, _, errs = run(t, env, "", "stats")
	if code != ExitConfig || !strings.Contains(errs, "QDRANT_COLLECTION") || strings.Contains(errs, "co-secret-456") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestDotEnvAndFlagsPrecedence(t *testing.T) {
	dir := t.TempDir()
	// ragscope.toml < .env < environment < flags.
	if err := os.WriteFile(filepath.Join(dir, "ragscope.toml"), []byte("[retrieval]\ntop_k = 2\nthreshold = 0.9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("RAGSCOPE_TOP_K=3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(env map[string]string, want int, args ...string) {
		t.Helper()
		env["__DIR"] = dir
		code, out, errs := run(t, env, "", append([]string{"query", "--json", "--threshold", "0"}, append(args, "ROS 2 nodes and topics")...)...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var doc QueryJSON
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Params.TopK != want {
			t.Errorf("top_k = %d, want %d", doc.Params.TopK, want)
		}
	}
	check(map[string]string{}, 3)
	check(map[string]string{"RAGSCOPE_TOP_K": "4"}, 4)
	check(map[string]string{"RAGSCOPE_TOP_K": "4"}, 6, "-k", "6")
}

func TestIndexCommandRoundTrip(t *testing.T) {
	root := t.TempDir()
	docs := filepath.Join(root, "docs", "guide")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	page := "---\ntitle: Torque Control\n---\n\n## Current Loops\n\nA motor driver closes a current loop to control torque precisely.\n\n## Gear Ratios\n\nGearboxes trade speed for torque in every joint of the arm.\n"
	if err := os.WriteFile(filepath.Join(docs, "01-torque.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(root, "book.idx")
	code, out, errs := run(t, nil, "", "index", filepath.Join(root, "docs"), "-o", idx, "--base-url", "https://me.github.io/book/docs/")
	if code != ExitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Indexed 1 pages, 2 chunks (0 files skipped)") {
		t.Errorf("index output: %s", out)
	}
	code, out, errs = run(t, nil, "", "--index", idx, "query", "--json", "how do gears change torque?")
	if code != ExitOK {
		t.Fatalf("query: exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Backend.Kind != "local" || doc.Results[0].URL != "https://me.github.io/book/docs/guide/torque#gear-ratios" {
		t.Fatalf("backend %s, first URL %s", doc.Backend.Kind, doc.Results[0].URL)
	}
	// Bad inputs to index.
	empty := t.TempDir()
	code, _, errs = run(t, nil, "", "index", empty, "-o", filepath.Join(root, "x.idx"))
	if code != ExitConfig || !strings.Contains(errs, "no markdown") {
		t.Errorf("empty docs: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, nil, "", "index", empty)
	if code != ExitUsage || !strings.Contains(errs, "-o FILE") {
		t.Errorf("missing -o: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, nil, "", "--docs", filepath.Join(root, "no-such-dir"), "stats")
	if code != ExitConfig || !strings.Contains(errs, "no-such-dir") {
		t.Errorf("missing docs folder: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, nil, "", "--index", filepath.Join(root, "missing.idx"), "stats")
	if code == ExitOK || !strings.Contains(errs, "missing.idx") {
		t.Errorf("missing index: exit %d, %q", code, errs)
	}
}

func TestHelpListsEnvironment(t *testing.T) {
	code, out, _ := run(t, nil, "", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"QDRANT_URL", "COHERE_API_KEY", "CO_API_KEY", "QDRANT_COLLECTION", "Exit codes"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %s", want)
		}
	}
	_, out, _ = run(t, nil, "", "query", "--help")
	for _, want := range []string{"--top-k", "--threshold", "--module", "--chapter", "--type", "--tag", "--no-dedup", "--json", "--context", "--selected-text", "--source-doc", "--source-section"} {
		if !strings.Contains(out, want) {
			t.Errorf("query help lacks %s", want)
		}
	}
}

func TestDebugLogRedactsKeys(t *testing.T) {
	log := filepath.Join(t.TempDir(), "debug.log")
	env := map[string]string{"COHERE_API_KEY": "co-secret-debug-1", "QDRANT_API_KEY": "qd-secret-debug-2"}
	code, _, errs := run(t, env, "", "--backend", "demo", "--debug", log, "query", "what is URDF?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, "config") || !strings.Contains(s, "[redacted]") {
		t.Fatalf("debug log lacks the redacted config:\n%s", s)
	}
	if strings.Contains(s, "co-secret-debug-1") || strings.Contains(s, "qd-secret-debug-2") {
		t.Fatalf("a key reached the debug log:\n%s", s)
	}
	code, _, errs = run(t, nil, "", "--debug", filepath.Join(t.TempDir(), "no", "such", "dir", "x.log"), "stats")
	if code != ExitConfig || !strings.Contains(errs, "--debug") {
		t.Fatalf("unwritable log: exit %d, %q", code, errs)
	}
}

func TestHostileTextIsStrippedFromHumanOutput(t *testing.T) {
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	page := "---\ntitle: \"Evil \\e]0;pwned\\a title\"\n---\n\n## Torque \x1b[2J\x1b[31mControl\n\nMotors \x1b]52;c;ZXZpbA==\x07 make torque.\n"
	if err := os.WriteFile(filepath.Join(docs, "evil.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, nil, "", "--docs", docs, "query", "--context", "torque motors")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(out+errs, "\x1b\x07") {
		t.Fatalf("a control sequence reached the terminal:\n%q", out)
	}
	if !strings.Contains(out, "Torque") || !strings.Contains(out, "make torque") {
		t.Fatalf("text lost:\n%s", out)
	}
	// JSON keeps the data as it is, escaped.
	code, out, _ = run(t, nil, "", "--docs", docs, "query", "--json", "torque motors")
	if code != ExitOK || !strings.Contains(out, `\u001b`) || strings.Contains(out, "\x1b") {
		t.Fatalf("JSON should carry the escape escaped: %q", out)
	}
}
