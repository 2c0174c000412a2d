package ui

import (
	"strings"
	"testing"
)

// The header keeps the point count visible at 120 columns and less: the
// collection, model and backend names give way first (issue 25, point 12).
func TestHeaderKeepsPointCount(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Backend = BackendInfo{
		Kind:       "qdrant",
		Collection: "physical-ai-humanoid-robotics-textbook-chunks-2025-edition-v3",
		Model:      "cohere embed-multilingual-v3.0 (1024 dims, search_query input type)",
		Points:     -1,
	}
	for _, w := range []int{120, 100, 80, 60} {
		m := sized(t, opts, w, 30)
		first := strings.SplitN(screen(m), "\n", 2)[0]
		if !strings.Contains(first, "42 points") {
			t.Errorf("%d columns: the point count is cut: %q", w, first)
		}
		if !strings.HasPrefix(first, "ragscope qdrant · collection") {
			t.Errorf("%d columns: the backend kind or collection is gone: %q", w, first)
		}
	}
}

// At 80x24 the header shows whole fields: none is cut with an ellipsis;
// the ones that do not fit are left out, the model first.
func TestHeaderDropsWholeFieldsAt80(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Backend = BackendInfo{Kind: "demo", Collection: "physical-ai-textbook (demo)", Model: "ragscope-local-glove100-sif+chargram-v2", Points: 165}
	for _, w := range []int{80, 100} {
		m := sized(t, opts, w, 24)
		first := strings.SplitN(screen(m), "\n", 2)[0]
		if strings.Contains(first, "…") || !strings.HasPrefix(first, "ragscope demo · collection physical-ai-textbook (demo) · ") || !strings.Contains(first, "points") {
			t.Errorf("%d columns: %q", w, first)
		}
	}
	m := sized(t, opts, 160, 24)
	if first := strings.SplitN(screen(m), "\n", 2)[0]; !strings.Contains(first, "ragscope-local-glove100-sif+chargram-v2") {
		t.Errorf("160 columns: the model is left out: %q", first)
	}
}
