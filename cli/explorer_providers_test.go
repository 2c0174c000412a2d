package cli

import (
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/provider/gemini/geminitest"
	"ragscope/ui"
)

// The explorer against the in-process Qdrant server with OpenAI and Gemini
// as the query embedders: the header names provider and model, a question
// gets results, and the model is asked for the collection's vector size.
func TestTUIWithOpenAIAndGemini(t *testing.T) {
	for _, p := range []struct {
		name, header string
		setup        func(t *testing.T) (env map[string]string, dims func() int)
	}{
		{"openai", "openai text-embedding-3-small", func(t *testing.T) (map[string]string, func() int) {
			oa, env := openAIFakes(t)
			return env, func() int { return oa.LastRequest().Dimensions }
		}},
		{"gemini", "gemini gemini-embedding-001", func(t *testing.T) (map[string]string, func() int) {
			_, _, env := fakes(t)
			delete(env, "COHERE_API_KEY")
			gm := geminitest.NewServer(testGeminiKey)
			t.Cleanup(gm.Close)
			return with(env, "GEMINI_API_KEY", testGeminiKey, "GEMINI_BASE_URL", gm.URL), func() int { d, _ := gm.LastDimensions(); return d }
		}},
	} {
		t.Run(p.name, func(t *testing.T) {
			env, dims := p.setup(t)
			d := newTUIDriver(t, tuiOptionsFor(t, env))
			d.until("stats", 5*time.Second, func(m ui.Model) bool { return strings.Contains(screen(m), "160 points") })
			if v := screen(d.m); !strings.Contains(v, p.header) {
				t.Fatalf("the header does not name provider and model:\n%s", v)
			}
			d.ask("how do ROS 2 nodes communicate?")
			d.until("results", 10*time.Second, idle)
			// The question is saved to the history in the background: wait
			// for it, or the temporary state folder is removed under it.
			d.until("history saved", 5*time.Second, func(ui.Model) bool { return d.fed["ui.historySavedMsg"] > 0 })
			if st := d.m.Status(); !strings.Contains(st, "results") || dims() != 1024 {
				t.Fatalf("status %q, dimensions %d", st, dims())
			}
		})
	}
}
