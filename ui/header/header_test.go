package header

import "testing"

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
