package cli

import (
	"strings"
	"testing"

	"ragscope/retrieval/provider/gemini/geminitest"
)

const testGeminiKey = "gm-e2e-key-31f0"

func TestGeminiQueryEndToEnd(t *testing.T) {
	_, _, env := fakes(t)
	delete(env, "COHERE_API_KEY")
	gm := geminitest.NewServer(testGeminiKey)
	defer gm.Close()
	env = with(env, "GEMINI_API_KEY", testGeminiKey, "GEMINI_BASE_URL", gm.URL)
	code, out, errs := run(t, env, "", "query", "how do humanoid robots keep their balance")
	if code != ExitOK || !strings.Contains(out, "gemini gemini-embedding-001") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// The 1024-dimensional collection: outputDimensionality 1024, RETRIEVAL_QUERY.
	if d, task := gm.LastDimensions(); d != 1024 || task != "RETRIEVAL_QUERY" {
		t.Fatalf("dims %d task %q", d, task)
	}
	for _, c := range []struct {
		env  []string
		args []string
		code int
		say  string
	}{
		{[]string{"GEMINI_API_KEY", "wrong"}, nil, ExitBackend, "rejected the API key"},
		{nil, []string{"--dimensions", "4000"}, ExitConfig, "at most 3072"},
		{nil, []string{"--model", "gemini-nope"}, ExitConfig, "does not exist"},
	} {
		args := append(append([]string{"query"}, c.args...), "balance")
		code, out, errs := run(t, with(env, c.env...), "", args...)
		if code != c.code || !strings.Contains(out+errs, c.say) {
			t.Fatalf("%v %v: exit %d\n%s\n%s", c.env, c.args, code, out, errs)
		}
		if strings.Contains(out+errs, testGeminiKey) {
			t.Fatal("the Gemini key was printed")
		}
	}
}
