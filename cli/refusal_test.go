package cli

import (
	"strings"
	"testing"

	"ragscope/retrieval/provider/gemini/geminitest"
	"ragscope/retrieval/provider/openai/openaitest"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// TestOneRuleForRefusals holds the README's rule for every provider: a
// request the backend refused for what it asked (an unknown model, a filter
// on a field a strict Qdrant has not indexed) is exit 2, fix the settings;
// a refused key is exit 3.
func TestOneRuleForRefusals(t *testing.T) {
	_, _, env := fakes(t)
	strict, err := qdranttest.Start(qdranttest.Options{APIKey: testQdrantKey, StrictFilters: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(strict.Close)
	c := qdranttest.TextbookA()
	delete(c.Indexed, "tags") // a filter on tags is refused
	strict.AddCollection(c)
	oa := openaitest.NewServer("oa-key-refusal")
	t.Cleanup(oa.Close)
	gm := geminitest.NewServer("gm-key-refusal")
	t.Cleanup(gm.Close)
	only := func(provider string, kv ...string) map[string]string {
		e := with(env, kv...)
		switch provider {
		case "openai":
			delete(e, "COHERE_API_KEY")
			e = with(e, "OPENAI_API_KEY", "oa-key-refusal", "OPENAI_BASE_URL", oa.URL, "RAGSCOPE_EMBEDDER", "openai")
		case "gemini":
			delete(e, "COHERE_API_KEY")
			e = with(e, "GEMINI_API_KEY", "gm-key-refusal", "GEMINI_BASE_URL", gm.URL, "RAGSCOPE_EMBEDDER", "gemini")
		}
		return e
	}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		say  string
	}{
		{"qdrant: filter on an unindexed field", with(env, "QDRANT_URL", strict.URL()), []string{"query", "--tag", "ros2", "ros"}, ExitConfig, "Qdrant rejected"},
		{"cohere: unknown model", env, []string{"query", "--model", "embed-nonexistent-v9", "ros"}, ExitConfig, "embed-nonexistent-v9"},
		{"openai: unknown model", only("openai"), []string{"query", "--model", "no-such-embedder", "--dimensions", "1024", "ros"}, ExitConfig, "no-such-embedder"},
		{"gemini: unknown model", only("gemini"), []string{"query", "--model", "no-such-embedder", "--dimensions", "1024", "ros"}, ExitConfig, "no-such-embedder"},
		{"qdrant: refused key", with(env, "QDRANT_API_KEY", "wrong"), []string{"query", "ros"}, ExitBackend, "QDRANT_API_KEY"},
		{"cohere: refused key", with(env, "COHERE_API_KEY", "wrong"), []string{"query", "ros"}, ExitBackend, "COHERE_API_KEY"},
		{"openai: refused key", with(only("openai"), "OPENAI_API_KEY", "wrong"), []string{"query", "ros"}, ExitBackend, "OPENAI_API_KEY"},
		{"gemini: refused key", with(only("gemini"), "GEMINI_API_KEY", "wrong"), []string{"query", "ros"}, ExitBackend, "GEMINI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.env, "", tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.say) {
				t.Fatalf("exit %d, want %d saying %q\nstdout: %s\nstderr: %s", code, tt.code, tt.say, out, errs)
			}
		})
	}
}
