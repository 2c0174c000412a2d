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

func TestFitHeader(t *testing.T) {
	for _, tt := range []struct {
		parts []string
		last  string
		w     int
		want  string
	}{
		{[]string{"demo", "collection book"}, "42 points", 80, "demo · collection book · 42 points"},
		{[]string{"qdrant", "collection abcdefghijklmnop", "model-xyz"}, "9 points", 40, "qdrant · collection … · 9 points"},
		{[]string{"qdrant", "collection abcdefghijklmnop", "model-xyz-long-name-v3"}, "9 points", 50, "qdrant · collection a… · model-xyz-lon… · 9 points"},
		{[]string{"qdrant", "collection abcdefghijklmnop", "model-xyz-long-name"}, "9 points", 30, "qdrant · 9 points"},
	} {
		if got := fitHeader(tt.parts, tt.last, tt.w); got != tt.want {
			t.Errorf("fitHeader(%q, %q, %d) = %q, want %q", tt.parts, tt.last, tt.w, got, tt.want)
		}
	}
}
