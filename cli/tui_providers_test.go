package cli

import (
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/gemini/geminitest"
	"ragscope/ui"
)

// The explorer against the in-process Qdrant server with OpenAI and Gemini
// as the query embedders: the header names provider and model, a question
// gets results, and the model is asked for the collection's vector size.
func TestTUIWithOpenAIAndGemini(t *testing.T) {
	t.Run("openai", func(t *testing.T) {
		oa, env := openAIFakes(t)
		d := newTUIDriver(t, tuiOptionsFor(t, env))
		d.until("stats", 5*time.Second, func(m ui.Model) bool { return strings.Contains(m.View(), "160 points") })
		if v := d.m.View(); !strings.Contains(v, "openai text-embedding-3-small") {
			t.Fatalf("the header does not name provider and model:\n%s", v)
		}
		d.ask("how do ROS 2 nodes communicate?")
		d.until("results", 10*time.Second, idle)
		if st := d.m.Status(); !strings.Contains(st, "results") || oa.LastRequest().Dimensions != 1024 {
			t.Fatalf("status %q, dimensions %d", st, oa.LastRequest().Dimensions)
		}
	})
	t.Run("gemini", func(t *testing.T) {
		_, _, env := fakes(t)
		delete(env, "COHERE_API_KEY")
		gm := geminitest.NewServer(testGeminiKey)
		t.Cleanup(gm.Close)
		env = with(env, "GEMINI_API_KEY", testGeminiKey, "GEMINI_BASE_URL", gm.URL)
		d := newTUIDriver(t, tuiOptionsFor(t, env))
		d.until("stats", 5*time.Second, func(m ui.Model) bool { return strings.Contains(m.View(), "160 points") })
		if v := d.m.View(); !strings.Contains(v, "gemini gemini-embedding-001") {
			t.Fatalf("the header does not name provider and model:\n%s", v)
		}
		d.ask("how do ROS 2 nodes communicate?")
		d.until("results", 10*time.Second, idle)
		if dims, _ := gm.LastDimensions(); !strings.Contains(d.m.Status(), "results") || dims != 1024 {
			t.Fatalf("status %q, dimensions %d", d.m.Status(), dims)
		}
	})
}
