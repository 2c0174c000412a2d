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
	kind := func(s string) headerPart { return headerPart{text: s, keep: keepKind} }
	coll := func(s string) headerPart { return headerPart{text: "collection " + s, keep: keepCollection} }
	model := func(s string) headerPart { return headerPart{text: s, keep: keepModel} }
	search := headerPart{text: "BM25 + title match", keep: keepSearch}
	for _, tt := range []struct {
		parts []headerPart
		last  string
		w     int
		want  string
	}{
		{[]headerPart{kind("demo"), coll("book")}, "42 points", 80, "demo · collection book · 42 points"},
		// Too long: the model gives way whole, then the search mode; the
		// order on screen stays.
		{[]headerPart{kind("demo"), coll("book"), model("model-xyz-long-name-v3"), search}, "9 points", 55, "demo · collection book · BM25 + title match · 9 points"},
		{[]headerPart{kind("demo"), coll("book"), model("model-xyz-long-name-v3"), search}, "9 points", 40, "demo · collection book · 9 points"},
		// A smaller field of lower keep still fills the room a larger one left.
		{[]headerPart{kind("qdrant"), coll("abcdefghijklmnop"), model("model-xyz-long-name-v3"), model("m2")}, "9 points", 52, "qdrant · collection abcdefghijklmnop · m2 · 9 points"},
		// The field read first is cut, not dropped, when it alone does not fit.
		{[]headerPart{kind("qdrant"), coll("abcdefghijklmnop"), model("model-xyz")}, "9 points", 33, "qdrant · collection a… · 9 points"},
		{[]headerPart{kind("qdrant"), coll("abcdefghijklmnop"), model("model-xyz")}, "9 points", 30, "qdrant · model-xyz · 9 points"},
		{[]headerPart{kind("qdrant"), coll("abcdefghijklmnop"), model("model-xyz")}, "9 points", 25, "qdrant · 9 points"},
	} {
		if got := fitHeader(tt.parts, tt.last, tt.w); got != tt.want {
			t.Errorf("fitHeader(%v, %q, %d) = %q, want %q", tt.parts, tt.last, tt.w, got, tt.want)
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
