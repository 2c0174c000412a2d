package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"ragscope/app"
	"ragscope/retrieval/provider/gemini/geminitest"
	"ragscope/retrieval/provider/openai/openaitest"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// TestPlantedSecretsOnBackendFailures plants distinctive keys in every
// source at once (Qdrant's in ragscope.toml, Cohere's in .env, OpenAI's in
// the environment, Gemini's in ragscope.toml), lets the configuration load
// so that the --debug log is written, and points each embedder at a server
// that echoes every request header (the key included) back in its error or
// its HTML page. No output stream, debug log or report ragscope writes may
// hold a key, for query (text and JSON), stats and eval --out.
func TestPlantedSecretsOnBackendFailures(t *testing.T) {
	const mark = "PLANTEDx9"
	qdrantKey := "sk-" + mark + "-qdrant"
	qs, err := qdranttest.Start(qdranttest.Options{APIKey: qdrantKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(qs.Close)
	qs.AddCollection(qdranttest.TextbookA())

	var status atomic.Int32
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var names []string
		for k := range r.Header {
			names = append(names, k)
		}
		// Headers holding a key first, so that a shortened excerpt still
		// carries it.
		sort.Slice(names, func(i, j int) bool {
			ki, kj := strings.Contains(strings.Join(r.Header[names[i]], ""), mark), strings.Contains(strings.Join(r.Header[names[j]], ""), mark)
			if ki != kj {
				return ki
			}
			return names[i] < names[j]
		})
		var dump strings.Builder
		for _, k := range names {
			fmt.Fprintf(&dump, "%s: %s; ", k, strings.Join(r.Header[k], ","))
		}
		dump.WriteString("query: " + r.URL.RawQuery)
		if !strings.Contains(dump.String(), mark) {
			t.Errorf("the request to %s carried no planted key to echo: %s", r.URL.Path, dump.String())
		}
		code := int(status.Load())
		if code == http.StatusOK {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><body>Sign in again. %s</body></html>", dump.String())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"message": dump.String(),
			"error":   map[string]any{"code": code, "message": dump.String(), "status": "INVALID_ARGUMENT", "type": "invalid_request_error"},
		})
	}))
	t.Cleanup(echo.Close)

	set := "cases:\n  - {id: one, question: \"What is ROS 2?\", expect: {modules: [module-1-ros2]}}\n"
	for _, provider := range []string{"cohere", "openai", "gemini"} {
		for _, code := range []int{http.StatusUnauthorized, http.StatusBadRequest, http.StatusNotFound, http.StatusOK} {
			for _, args := range [][]string{
				{"query", "what is ROS 2?"},
				{"query", "--json", "what is ROS 2?"},
				{"stats", "--json"},
				{"eval", "set.yaml", "--out", "report.json"},
			} {
				name := fmt.Sprintf("%s %d %s", provider, code, strings.Join(args[:2], " "))
				t.Run(name, func(t *testing.T) {
					status.Store(int32(code))
					dir := t.TempDir()
					writeTestFile(t, filepath.Join(dir, ".env"), "COHERE_API_KEY=sk-"+mark+"-cohere\nCOHERE_BASE_URL="+echo.URL+"\n")
					writeTestFile(t, filepath.Join(dir, "ragscope.toml"), fmt.Sprintf("[qdrant]\nurl = %q\napi_key = %q\ncollection = %q\n[gemini]\napi_key = %q\nbase_url = %q\n",
						qs.URL(), qdrantKey, qdranttest.CollectionA, "sk-"+mark+"-gemini", echo.URL))
					writeTestFile(t, filepath.Join(dir, "set.yaml"), set)
					env := map[string]string{"__DIR": dir, "OPENAI_API_KEY": "sk-" + mark + "-openai", "OPENAI_BASE_URL": echo.URL + "/v1",
						"RAGSCOPE_EMBEDDER": provider, "RAGSCOPE_EMBED_DIMENSIONS": "1024", "XDG_STATE_HOME": filepath.Join(dir, "state")}
					if provider == "cohere" {
						env["RAGSCOPE_EMBED_DIMENSIONS"] = ""
					}
					log := filepath.Join(dir, "debug.log")
					full := append([]string{"--debug", log}, args...)
					for i, a := range full {
						if a == "set.yaml" || a == "report.json" {
							full[i] = filepath.Join(dir, a)
						}
					}
					exit, out, errs := run(t, env, "", full...)
					if args[0] != "stats" && exit == ExitOK {
						t.Errorf("exit 0 against a failing %s: %s", provider, errs)
					}
					if b, err := os.ReadFile(log); err != nil || len(b) == 0 {
						t.Errorf("the debug log was not written (%v): this case must exercise it", err)
					}
					for stream, text := range map[string]string{"stdout": out, "stderr": errs} {
						if strings.Contains(text, mark) {
							t.Errorf("%s holds a planted key:\n%s", stream, text)
						}
					}
					_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
						if err != nil || d.IsDir() || d.Name() == ".env" || d.Name() == "ragscope.toml" {
							return err
						}
						if b, rerr := os.ReadFile(p); rerr == nil && strings.Contains(string(b), mark) {
							t.Errorf("%s holds a planted key:\n%s", filepath.Base(p), b)
						}
						return nil
					})
				})
			}
		}
	}
}

// urlScenario says how a run reaches the server a URL setting names: the
// environment (the setting itself is planted by the caller), the commands
// to run in dir, and a base URL that answers.
type urlScenario struct {
	run func(t *testing.T, dir string) (env map[string]string, commands [][]string)
	// answers is the base URL of a server that answers.
	answers string
	// queryBreaks: a query string in this base URL makes the client's
	// request paths wrong (they are appended after it), so with a planted
	// query the answering server answers 404; that is no success.
	queryBreaks bool
}

// urlScenarios has a scenario for each URL setting by name.
// TestPlantedURLCredentials fails for a URL setting that has none, so a
// new one cannot go untested.
func urlScenarios(t *testing.T) map[string]urlScenario {
	t.Helper()
	_, _, qdrantEnv := fakes(t)
	gm := geminitest.NewServer(testGeminiKey)
	t.Cleanup(gm.Close)
	oa := openaitest.NewServer(testOpenAIKey)
	t.Cleanup(oa.Close)
	withoutCohere := func() map[string]string {
		e := with(qdrantEnv)
		delete(e, "COHERE_API_KEY")
		delete(e, "COHERE_BASE_URL")
		return e
	}
	// The docs base and site origin: citation URLs are built on them,
	// printed, saved in an index, and fetched by links --live (from a
	// local site: the docs base is always one, unless it is the setting
	// planted).
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><h2 id=\"overview\">Overview</h2></body></html>")
	}))
	t.Cleanup(site.Close)
	citations := urlScenario{answers: site.URL + "/docs/", run: func(t *testing.T, dir string) (map[string]string, [][]string) {
		docs := indexDocs(t, dir)
		idx := filepath.Join(dir, "book.idx")
		return map[string]string{"RAGSCOPE_BACKEND": "demo", "RAGSCOPE_BASE_URL": site.URL + "/docs/"}, [][]string{
			{"query", "what is ROS 2?"},
			{"query", "--json", "what is ROS 2?"},
			{"links", "--json"},
			{"index", docs, "-o", idx},
			{"--index", idx, "--backend", "local", "query", "--json", "torque"},
			{"--index", idx, "--backend", "local", "links", "--live"},
		}
	}}
	return map[string]urlScenario{
		"qdrant_url": {answers: qdrantEnv["QDRANT_URL"], run: func(t *testing.T, dir string) (map[string]string, [][]string) {
			return with(qdrantEnv), [][]string{{"query", "balance"}, {"stats", "--json"}}
		}},
		"cohere_base_url": {answers: qdrantEnv["COHERE_BASE_URL"], queryBreaks: true, run: func(t *testing.T, dir string) (map[string]string, [][]string) {
			return with(qdrantEnv), [][]string{
				{"query", "balance"},
				{"--backend", "demo", "ask", "--chat-provider", "cohere", "what is ROS 2?"},
				{"--backend", "demo", "query", "--rerank", "rerank-v3.5", "what is ROS 2?"},
			}
		}},
		"openai_base_url": {answers: oa.URL, queryBreaks: true, run: func(t *testing.T, dir string) (map[string]string, [][]string) {
			return with(withoutCohere(), "OPENAI_API_KEY", testOpenAIKey), [][]string{
				{"query", "balance"},
				{"--backend", "demo", "ask", "--chat-provider", "openai", "--chat-model", "llama3.2", "what is ROS 2?"},
			}
		}},
		"gemini_base_url": {answers: gm.URL, run: func(t *testing.T, dir string) (map[string]string, [][]string) {
			set := filepath.Join(dir, "set.yaml")
			writeTestFile(t, set, "cases:\n  - {id: one, question: \"How do humanoid robots keep their balance?\", expect: {modules: [module-1-ros2]}}\n")
			return with(withoutCohere(), "GEMINI_API_KEY", testGeminiKey), [][]string{
				{"query", "balance"},
				{"query", "--json", "balance"},
				{"eval", set, "--out", filepath.Join(dir, "report.json")},
			}
		}},
		"base_url": citations,
		"site_url": citations,
	}
}

// TestPlantedURLCredentials plants a credential in the user information,
// and in credential query parameters (key, and X-Goog-Api-Key: Gemini's own
// auth takes that form), of every URL-valued setting in turn, then runs
// the commands that use it against a server that answers, one that answers
// with an error echoing the request (headers, URL and query) and one that
// is not there. Neither stdout, stderr, the --debug log nor any file
// ragscope wrote (state files, reports, indexes) may hold the credential.
func TestPlantedURLCredentials(t *testing.T) {
	const mark = "PLANTEDurl7"
	scenarios := urlScenarios(t)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var dump strings.Builder
		for k, v := range r.Header {
			fmt.Fprintf(&dump, "%s: %s; ", k, strings.Join(v, ","))
		}
		fmt.Fprintf(&dump, "url: http://%s%s; query: %s", r.Host, r.URL.RequestURI(), r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"message": dump.String(),
			"error":   map[string]any{"code": 400, "message": dump.String(), "status": "INVALID_ARGUMENT", "type": "invalid_request_error"},
		})
	}))
	t.Cleanup(echo.Close)
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()

	plants := []struct {
		name  string
		plant func(string) string
	}{
		{"userinfo", func(u string) string { return strings.Replace(u, "://", "://user"+mark+":pw"+mark+"@", 1) }},
		{"query", func(u string) string { return u + "?alt=json&key=" + mark + "q&X-Goog-Api-Key=" + mark + "g" }},
	}
	urls := app.Providers().ConfigRows().URLSettings()
	if len(urls) < 6 {
		t.Fatalf("only %d URL settings", len(urls))
	}
	for _, s := range urls {
		sc, ok := scenarios[s.Name]
		if !ok {
			t.Errorf("URL setting %s has no scenario in urlScenarios: add one", s.Name)
			continue
		}
		for _, p := range plants {
			for _, srv := range []struct{ name, url string }{{"answers", sc.answers}, {"error answer", echo.URL}, {"unreachable", goneURL}} {
				t.Run(s.Name+" "+p.name+" "+srv.name, func(t *testing.T) {
					dir := t.TempDir()
					env, commands := sc.run(t, dir)
					planted := p.plant(srv.url)
					env = with(env, s.Env[0], planted, "__DIR", dir, "XDG_STATE_HOME", filepath.Join(dir, "state"))
					for _, args := range commands {
						log := filepath.Join(dir, "debug.log")
						code, out, errs := run(t, env, "", append([]string{"--debug", log}, args...)...)
						what := fmt.Sprintf("%s=%s %v: exit %d", s.Env[0], planted, args, code)
						if srv.name == "answers" && code != ExitOK && !((slices.Contains(args, "links") || args[0] == "eval") && code == ExitCheck) && !(p.name == "query" && sc.queryBreaks) {
							t.Errorf("%s against a server that answers:\n%s", what, errs)
						}
						if b, err := os.ReadFile(log); err != nil || len(b) == 0 {
							t.Errorf("%s: the debug log was not written (%v)", what, err)
						}
						for stream, text := range map[string]string{"stdout": out, "stderr": errs} {
							if strings.Contains(text, mark) {
								t.Errorf("%s: %s holds a planted URL credential:\n%s", what, stream, text)
							}
						}
					}
					_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
						if err != nil || d.IsDir() {
							return err
						}
						if b, rerr := os.ReadFile(p); rerr == nil && strings.Contains(string(b), mark) {
							t.Errorf("%s holds a planted URL credential:\n%s", p, b)
						}
						return nil
					})
				})
			}
		}
	}
}
