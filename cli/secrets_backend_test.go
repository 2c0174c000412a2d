package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"ragscope/retrieval/qdrant/qdranttest"
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
