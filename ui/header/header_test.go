package header

import (
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"ragscope/ui/common"
)

// fit keeps the backend kind and the point count, gives way by keep,
// field by field, and cuts only the field read first.
func TestFitHeader(t *testing.T) {
	kind := func(s string) part { return part{text: s, keep: keepKind} }
	coll := func(s string) part { return part{text: "collection " + s, keep: keepCollection} }
	model := func(s string) part { return part{text: s, keep: keepModel} }
	search := part{text: "BM25 + title match", keep: keepSearch}
	for _, tt := range []struct {
		parts []part
		last  string
		w     int
		want  string
	}{
		{[]part{kind("demo"), coll("book")}, "42 points", 80, "demo · collection book · 42 points"},
		// Too long: the model gives way whole, then the search mode; the
		// order on screen stays.
		{[]part{kind("demo"), coll("book"), model("model-xyz-long-name-v3"), search}, "9 points", 55, "demo · collection book · BM25 + title match · 9 points"},
		{[]part{kind("demo"), coll("book"), model("model-xyz-long-name-v3"), search}, "9 points", 40, "demo · collection book · 9 points"},
		// A smaller field of lower keep still fills the room a larger one left.
		{[]part{kind("qdrant"), coll("abcdefghijklmnop"), model("model-xyz-long-name-v3"), model("m2")}, "9 points", 52, "qdrant · collection abcdefghijklmnop · m2 · 9 points"},
		// The field read first is cut, not dropped, when it alone does not fit.
		{[]part{kind("qdrant"), coll("abcdefghijklmnop"), model("model-xyz")}, "9 points", 33, "qdrant · collection a… · 9 points"},
		{[]part{kind("qdrant"), coll("abcdefghijklmnop"), model("model-xyz")}, "9 points", 30, "qdrant · model-xyz · 9 points"},
		{[]part{kind("qdrant"), coll("abcdefghijklmnop"), model("model-xyz")}, "9 points", 25, "qdrant · 9 points"},
	} {
		if got := fit(tt.parts, tt.last, tt.w); got != tt.want {
			t.Errorf("fit(%v, %q, %d) = %q, want %q", tt.parts, tt.last, tt.w, got, tt.want)
		}
	}
}

// A hybrid collection's header keeps its fusion on screen at 120 and 100
// columns, however long the collection's name: the search's model names
// go first, then the middle of the name.
func TestHeaderKeepsTheFusion(t *testing.T) {
	st := common.DefaultStyles(true, colorprofile.NoTTY)
	in := Info{Backend: Backend{
		Kind: "qdrant", Collection: "physical-ai-humanoid-robotics-textbook-production-chunks-v7",
		Model:  "embed-english-v3.0",
		Search: "hybrid: dense (embed-english-v3.0) + bm25 (qdrant/bm25), RRF k=2", Points: 12345,
	}}
	for _, tt := range []struct {
		w    int
		want string
	}{
		{120, "ragscope qdrant · collection physical-ai-hu…extbook-production-chunks-v7 · hybrid: dense + bm25, RRF k=2 · 12,345 points"},
		{100, "ragscope qdrant · collection physica…ction-chunks-v7 · hybrid: dense + bm25, RRF k=2 · 12,345 points"},
		// Narrower: the search's arms go too.
		{80, "ragscope qdrant · collection physi…n-chunks-v7 · hybrid, RRF k=2 · 12,345 points"},
		// Room for it all: nothing is shortened.
		{200, "ragscope qdrant · collection physical-ai-humanoid-robotics-textbook-production-chunks-v7 · hybrid: dense (embed-english-v3.0) + bm25 (qdrant/bm25), RRF k=2 · 12,345 points"},
	} {
		got := ansi.Strip(strings.SplitN(View(st, in, tt.w), "\n", 2)[0])
		if got != tt.want {
			t.Errorf("%d columns:\n got %q\nwant %q", tt.w, got, tt.want)
		}
		if ansi.StringWidth(got) > tt.w {
			t.Errorf("%d columns: %d cells", tt.w, ansi.StringWidth(got))
		}
	}
	// A short name leaves the name whole; only the model names go.
	in.Backend.Collection = "book"
	got := ansi.Strip(strings.SplitN(View(st, in, 100), "\n", 2)[0])
	if want := "ragscope qdrant · collection book · hybrid: dense + bm25, RRF k=2 · 12,345 points"; got != want {
		t.Errorf("short name:\n got %q\nwant %q", got, want)
	}
}
