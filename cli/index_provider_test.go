package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/gemini/geminitest"
	"ragscope/retrieval/provider/openai/openaitest"
)

// providerDocs writes a docs folder of pages pages, each with sections
// sections of a paragraph, and returns the folder.
func providerDocs(t testing.TB, root string, pages, sections int) string {
	t.Helper()
	docs := filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := range pages {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Page %d\n---\n\n", p)
		for s := range sections {
			fmt.Fprintf(&b, "## Section %d of page %d\n\nThe actuator %d drives joint %d of the humanoid with torque control loop %d.\n\n", s, p, p, s, p*sections+s)
		}
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("%03d-page.md", p)), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

// cohereIndexEnv is an environment with the fake Cohere server as the
// only provider and a cache folder of the test's own.
func cohereIndexEnv(t testing.TB, url string) map[string]string {
	return map[string]string{"COHERE_API_KEY": testCohereKey, "COHERE_BASE_URL": url, "XDG_CACHE_HOME": t.TempDir()}
}

// cohereIndex serves the fake Cohere for the test, writes a docs folder
// of pages pages of sections sections (providerDocs) and indexes it with
// index --embedder cohere; it returns the environment, the docs folder
// and the index file.
func cohereIndex(t *testing.T, pages, sections int) (env map[string]string, docs, idx string) {
	t.Helper()
	co := coheretest.NewServer(testCohereKey)
	t.Cleanup(co.Close)
	env = cohereIndexEnv(t, co.URL)
	root := t.TempDir()
	docs = providerDocs(t, root, pages, sections)
	idx = filepath.Join(root, "book.idx")
	if code, out, errs := run(t, env, "", "index", docs, "--embedder", "cohere", "-o", idx); code != ExitOK {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errs)
	}
	return env, docs, idx
}

// editPage edits a page of providerDocs (every "humanoid" becomes
// "biped") and returns the func that undoes the edit.
func editPage(t testing.TB, page string) (undo func()) {
	t.Helper()
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	write := func(b []byte) {
		if err := os.WriteFile(page, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write([]byte(strings.ReplaceAll(string(raw), "humanoid", "biped")))
	return func() { write(raw) }
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func TestIndexWithCohereEmbeddings(t *testing.T) {
	co := coheretest.NewServer(testCohereKey)
	defer co.Close()
	env := cohereIndexEnv(t, co.URL)
	root := t.TempDir()
	docs := providerDocs(t, root, 3, 70) // 210 chunks: three calls of at most 96
	idx := filepath.Join(root, "book.idx")
	code, out, errs := run(t, env, "", "index", docs, "--embedder", "cohere", "-o", idx)
	if code != ExitOK {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errs)
	}
	if got := co.LastRequest().InputType; got != "search_document" {
		t.Errorf("documents embedded with input_type %q, want search_document", got)
	}
	sizes := co.BatchSizes()
	if len(sizes) != 3 || sumInts(sizes) != 210 || sizes[0] > coheretest.MaxTexts {
		t.Errorf("batches %v, want three covering 210 chunks", sizes)
	}
	if !strings.Contains(out, "Embedding: cohere embed-english-v3.0 (dim 1024): 3 calls (4 in flight), 210 chunks embedded, 0 from the cache") || !strings.Contains(out, "tokens") {
		t.Errorf("the summary does not give the calls and tokens:\n%s", out)
	}
	// Questions: the same provider and model, its query input type, in
	// every local search mode.
	for _, mode := range []string{"hybrid", "bm25", "embedder"} {
		code, out, errs = run(t, env, "", "query", "--index", idx, "--local-search", mode, "--json", "actuator 2 joint 5 torque control")
		if code != ExitOK {
			t.Fatalf("query %s: exit %d\n%s\n%s", mode, code, out, errs)
		}
		var q QueryJSON
		if err := json.Unmarshal([]byte(out), &q); err != nil {
			t.Fatal(err)
		}
		if q.Backend.Provider != "cohere" || q.Backend.Model != "embed-english-v3.0" || len(q.Results) == 0 {
			t.Fatalf("%s: backend %+v, %d hits", mode, q.Backend, len(q.Results))
		}
		if !strings.Contains(q.Results[0].DocPath, "002-page") {
			t.Errorf("%s: top hit %s, want page 2", mode, q.Results[0].DocPath)
		}
	}
	if got := co.LastRequest().InputType; got != "search_query" {
		t.Errorf("question embedded with input_type %q, want search_query", got)
	}
	// No mode configured: the index's vectors, fused with BM25, named in
	// the header and in params.ranking; the offline embedder keeps BM25.
	code, out, errs = run(t, env, "", "query", "--index", idx, "actuator 2 joint 5 torque control")
	if code != ExitOK || !strings.Contains(out, "· hybrid RRF (k 60) of cosine and BM25 + title match") {
		t.Errorf("default search: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, env, "", "query", "--index", idx, "--json", "actuator 2 joint 5 torque control")
	var dq QueryJSON
	if err := json.Unmarshal([]byte(out), &dq); err != nil || code != ExitOK || dq.Params.Ranking != "hybrid" {
		t.Errorf("default search --json: exit %d, ranking %q, %v\n%s", code, dq.Params.Ranking, err, errs)
	}
	offline := filepath.Join(root, "offline.idx")
	if code, out, errs := run(t, env, "", "index", docs, "-o", offline); code != ExitOK {
		t.Fatalf("offline index: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, env, "", "query", "--index", offline, "actuator 2 joint 5 torque control")
	if code != ExitOK || !strings.Contains(out, "· BM25 + title match") {
		t.Errorf("offline default: exit %d\n%s\n%s", code, out, errs)
	}
	// Re-indexing to another file: every vector from the cache.
	before := co.Requests()
	code, out, errs = run(t, env, "", "index", docs, "--embedder", "cohere", "-o", filepath.Join(root, "again.idx"))
	if code != ExitOK || co.Requests() != before || !strings.Contains(out, "0 calls (4 in flight), 0 chunks embedded, 210 from the cache") {
		t.Fatalf("re-index: exit %d, %d calls\n%s\n%s", code, co.Requests()-before, out, errs)
	}
	// An edited page: only its chunks are embedded.
	editPage(t, filepath.Join(docs, "001-page.md"))
	n := len(co.BatchSizes())
	code, out, errs = run(t, env, "", "index", docs, "--embedder", "cohere", "-o", idx)
	if code != ExitOK {
		t.Fatalf("edited: exit %d\n%s\n%s", code, out, errs)
	}
	if got := sumInts(co.BatchSizes()[n:]); got != 70 {
		t.Errorf("after editing one page (70 chunks), %d texts were embedded:\n%s", got, out)
	}
	// stats names the embedder and chunking, with no key needed.
	code, out, errs = run(t, map[string]string{}, "", "stats", "--index", idx)
	if code != ExitOK || !strings.Contains(out, "Embedder:        cohere embed-english-v3.0 (1024 dimensions)") || !strings.Contains(out, "Chunking:        split at headings, at most 1500 characters, no overlap") {
		t.Errorf("stats: exit %d\n%s\n%s", code, out, errs)
	}
	noCohereKey(t, out, errs)
}

// noCohereKey fails when the Cohere key was printed.
func noCohereKey(t *testing.T, outs ...string) {
	t.Helper()
	for _, s := range outs {
		if strings.Contains(s, testCohereKey) {
			t.Fatalf("the Cohere key was printed:\n%s", s)
		}
	}
}

func TestIndexWithGeminiEmbeddings(t *testing.T) {
	g := geminitest.NewServer("gemini-key")
	defer g.Close()
	env := map[string]string{"GEMINI_API_KEY": "gemini-key", "GEMINI_BASE_URL": g.URL, "XDG_CACHE_HOME": t.TempDir()}
	root := t.TempDir()
	docs := providerDocs(t, root, 1, 3)
	idx := filepath.Join(root, "g.idx")
	code, out, errs := run(t, env, "", "index", docs, "--embedder", "gemini", "--dimensions", "256", "-o", idx)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if dims, task := g.LastDimensions(); dims != 256 || task != "RETRIEVAL_DOCUMENT" {
		t.Errorf("documents: dimensions %d, task %q", dims, task)
	}
	if !strings.Contains(out, "about ") || !strings.Contains(out, "gemini reports none") {
		t.Errorf("gemini counts no tokens: the summary must say they are estimated:\n%s", out)
	}
	code, out, errs = run(t, env, "", "query", "--index", idx, "joint 1 torque")
	if code != ExitOK {
		t.Fatalf("query: exit %d\n%s\n%s", code, out, errs)
	}
	if dims, task := g.LastDimensions(); dims != 256 || task != "RETRIEVAL_QUERY" {
		t.Errorf("question: dimensions %d, task %q", dims, task)
	}
}

// cohereBook builds a one-page book's index with the fake Cohere server's
// embeddings and returns the environment that reaches the server and the
// index file.
func cohereBook(t *testing.T, co *coheretest.Server) (env map[string]string, idx string) {
	t.Helper()
	env = cohereIndexEnv(t, co.URL)
	root := t.TempDir()
	idx = filepath.Join(root, "book.idx")
	if code, out, errs := run(t, env, "", "index", providerDocs(t, root, 1, 2), "--embedder", "cohere", "-o", idx); code != ExitOK {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errs)
	}
	return env, idx
}

func TestIndexProviderMismatchIsExit2(t *testing.T) {
	co := coheretest.NewServer(testCohereKey)
	defer co.Close()
	env, idx := cohereBook(t, co)
	for _, args := range [][]string{
		{"--embedder", "openai"},
		{"--embedder", "local"},
		{"--model", "embed-multilingual-v3.0"},
		{"--dimensions", "256"},
	} {
		before := co.Requests()
		code, _, errs := run(t, with(env, "OPENAI_API_KEY", "sk-x"), "", append(append([]string{"query", "--index", idx}, args...), "torque")...)
		if code != ExitConfig || !strings.Contains(errs, "holds vectors of cohere embed-english-v3.0") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
		if co.Requests() != before {
			t.Errorf("%v: a call was made", args)
		}
	}
}

func TestIndexWithoutEmbedderStaysOffline(t *testing.T) {
	co := coheretest.NewServer(testCohereKey)
	defer co.Close()
	env := cohereIndexEnv(t, co.URL)
	root := t.TempDir()
	code, out, errs := run(t, env, "", "index", providerDocs(t, root, 1, 2), "-o", filepath.Join(root, "b.idx"))
	if code != ExitOK || co.Requests() != 0 || strings.Contains(out, "Embedding:") {
		t.Fatalf("exit %d, %d calls\n%s\n%s", code, co.Requests(), out, errs)
	}
}

func TestIndexProviderRetriesAfter429(t *testing.T) {
	co := coheretest.NewServer(testCohereKey)
	defer co.Close()
	co.Fail(coheretest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "1"})
	root := t.TempDir()
	code, out, errs := run(t, cohereIndexEnv(t, co.URL), "", "index", providerDocs(t, root, 1, 2), "--embedder", "cohere", "-o", filepath.Join(root, "b.idx"))
	if code != ExitOK || co.Requests() != 2 {
		t.Fatalf("exit %d after %d requests\n%s\n%s", code, co.Requests(), out, errs)
	}
}

// failAfter is a proxy to a fake provider that forwards the first ok
// requests and answers the others with a body that is not JSON (an
// invalid answer, never retried).
func failAfter(t *testing.T, target string, ok int64) *httptest.Server {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > ok {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html>gateway</html>")
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestIndexProviderFailureHalfWay(t *testing.T) {
	co := coheretest.NewServer(testCohereKey)
	defer co.Close()
	proxy := failAfter(t, co.URL, 2)
	env := cohereIndexEnv(t, proxy.URL)
	root := t.TempDir()
	docs := providerDocs(t, root, 4, 70) // 280 chunks: three calls of 96 and one of 88
	idx := filepath.Join(root, "book.idx")
	if err := os.WriteFile(idx, []byte("the old index"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, env, "", "index", docs, "--embedder", "cohere", "--concurrency", "1", "-o", idx)
	if code != ExitBackend || !strings.Contains(errs, "invalid response") || !strings.Contains(errs, "192 chunks embedded before the failure are cached") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(idx); string(b) != "the old index" {
		t.Error("the old index was replaced")
	}
	if entries, _ := os.ReadDir(root); len(entries) != 2 {
		t.Errorf("files left beside the index: %v", entries)
	}
	// The next run, with the provider well again, embeds only the rest.
	env["COHERE_BASE_URL"] = co.URL
	n := len(co.BatchSizes())
	code, out, errs = run(t, env, "", "index", docs, "--embedder", "cohere", "-o", idx)
	if code != ExitOK || sumInts(co.BatchSizes()[n:]) != 280-192 {
		t.Fatalf("exit %d, %d texts embedded\n%s\n%s", code, sumInts(co.BatchSizes()[n:]), out, errs)
	}
}

func TestIndexChunkingOptions(t *testing.T) {
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# Gait\n\n")
	for s := range 4 {
		fmt.Fprintf(&b, "## Phase %d\n\n", s)
		for p := range 3 {
			fmt.Fprintf(&b, "Paragraph %d of phase %d: the swing leg lifts, the stance leg pushes, and the torso stays level over the support polygon.\n\n", p, s)
		}
	}
	if err := os.WriteFile(filepath.Join(docs, "gait.md"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(root, "small.idx")
	// --chunk-size counts characters, the unit of the default.
	code, out, errs := run(t, nil, "", "index", docs, "--chunk-size", "300", "--overlap", "5", "--split", "size", "-o", idx)
	want := "split by size across headings, at most 300 characters, 5 words of overlap"
	if code != ExitOK || !strings.Contains(out, "Chunking: "+want) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, nil, "", "stats", "--index", idx)
	if code != ExitOK || !strings.Contains(out, "Chunking:        "+want) {
		t.Fatalf("stats: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run(t, nil, "", "stats", "--index", idx, "--json")
	var st StatsJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != ExitOK {
		t.Fatalf("stats --json: exit %d, %v", code, err)
	}
	if c := st.Index.Chunking; c.Split != "size" || c.Size != 300 || c.Unit != "characters" || c.Overlap != 5 || st.Index.Provider != "" || st.Index.Dim == 0 {
		t.Errorf("stats --json index = %+v", st.Index)
	}
	for _, bad := range [][]string{{"--chunk-size", "40"}, {"--chunk-size", "300", "--overlap", "25"}, {"--split", "paragraphs"}, {"--overlap", "-1"}} {
		code, _, errs := run(t, nil, "", append([]string{"index", docs, "-o", filepath.Join(root, "x.idx")}, bad...)...)
		if code != ExitConfig {
			t.Errorf("%v: exit %d, %q", bad, code, errs)
		}
	}
}

func TestIndexWithOpenAIEmbeddings(t *testing.T) {
	oa := openaitest.NewServer(testOpenAIKey)
	defer oa.Close()
	env := map[string]string{"OPENAI_API_KEY": testOpenAIKey, "OPENAI_BASE_URL": oa.URL, "XDG_CACHE_HOME": t.TempDir()}
	root := t.TempDir()
	idx := filepath.Join(root, "o.idx")
	code, out, errs := run(t, env, "", "index", providerDocs(t, root, 1, 4), "--embedder", "openai", "--dimensions", "512", "-o", idx)
	if code != ExitOK || !strings.Contains(out, "openai text-embedding-3-small (dim 512): 1 calls") || !strings.Contains(out, ", 4 tokens") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, env, "", "query", "--index", idx, "joint 2 torque")
	if code != ExitOK || oa.LastRequest().Dimensions != 512 {
		t.Fatalf("query: exit %d, dimensions %d\n%s\n%s", code, oa.LastRequest().Dimensions, out, errs)
	}
	noOpenAIKey(t, out, errs)
}

// Two setups on one provider-embedded index each build their own query
// embedder (their own keys and checks) even though the comparison loads
// what setups share once: a setup asking for another model is refused
// while the other would have served it.
func TestVsProviderIndexNotShared(t *testing.T) {
	co := coheretest.NewServer(testCohereKey)
	defer co.Close()
	env, idx := cohereBook(t, co)
	toml := "[setups.a]\nlocal.index = \"" + idx + "\"\n\n[setups.b]\nlocal.index = \"" + idx + "\"\nlocal.search = \"embedder\"\n\n[setups.c]\nlocal.index = \"" + idx + "\"\nembedder.model = \"embed-multilingual-v3.0\"\n"
	dir := setupsDir(t, toml)
	env["__DIR"] = dir
	code, out, errs := run(t, env, "", "query", "--setup", "a", "--vs", "b", "--json", "torque")
	if code != ExitOK {
		t.Fatalf("a vs b: exit %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = run(t, env, "", "query", "--setup", "a", "--vs", "c", "torque")
	if code != ExitConfig || !strings.Contains(errs, "setup c") || !strings.Contains(errs, "holds vectors of cohere embed-english-v3.0") {
		t.Errorf("a vs c: exit %d, %q", code, errs)
	}
}
