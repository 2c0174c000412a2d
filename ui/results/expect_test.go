package results

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// A pick already expected is taken out, a new one added; past
// MaxExpected the oldest gives way; the turn's list is never written.
func TestToggleExpected(t *testing.T) {
	refs := []string{"docs/a.md", "docs/b.md"}
	if got := ToggleExpected(refs, "docs/a.md"); !slices.Equal(got, []string{"docs/b.md"}) {
		t.Errorf("remove: %q", got)
	}
	if got := ToggleExpected(refs, "docs/c.md"); !slices.Equal(got, []string{"docs/a.md", "docs/b.md", "docs/c.md"}) {
		t.Errorf("add: %q", got)
	}
	if !slices.Equal(refs, []string{"docs/a.md", "docs/b.md"}) {
		t.Errorf("the turn's list was written: %q", refs)
	}
	var full []string
	for i := range MaxExpected {
		full = append(full, "docs/"+strconv.Itoa(i)+".md")
	}
	got := ToggleExpected(full, "docs/new.md")
	if len(got) != MaxExpected || got[0] != "docs/1.md" || got[len(got)-1] != "docs/new.md" {
		t.Errorf("past the bound: %q", got)
	}
}

// The status says where each expected source went, with the closest doc
// paths for one not found; the ANN check's line lists three misses at
// most; a refused exact search says why. Each is bad when something was
// missed or cut.
func TestDiagStatus(t *testing.T) {
	src := []DocSource{{Ref: "docs/module-1/ros2.md"}, {Ref: "docs/module-1/ros2.md#nodes"}, {Ref: "docs/intro.md"}}
	d := &retrieval.Diagnosis{Expected: []retrieval.Expected{{Ref: "docs/module-1/ros.md#x", Cut: retrieval.CutNotFound, Detail: "not in the collection"}}, Notes: []string{"a note"}}
	text, bad := DiagStatus(d, false, src)
	if !bad || !strings.Contains(text, "; closest: docs/module-1/ros2.md") || strings.Count(text, "ros2.md") != 1 || !strings.HasSuffix(text, " · a note") {
		t.Errorf("not found: %q %v", text, bad)
	}
	if text, _ := DiagStatus(d, false, nil); strings.Contains(text, "closest") {
		t.Errorf("closest without sources: %q", text)
	}
	score := 0.8
	found := &retrieval.Diagnosis{Expected: []retrieval.Expected{{Ref: "docs/intro.md", PointID: "p1", Rank: 1, Score: &score}}}
	if text, bad := DiagStatus(found, false, src); bad || text == "" {
		t.Errorf("found: %q %v", text, bad)
	}
	c := &retrieval.ANNCheck{K: 5, Recall: 0.2, Approximate: true}
	for i := range 4 {
		c.Missed = append(c.Missed, retrieval.ANNMiss{ExactRank: i + 1, DocPath: "docs/m" + strconv.Itoa(i) + ".md"})
	}
	text, bad = DiagStatus(&retrieval.Diagnosis{ANN: c}, true, nil)
	if !bad || !strings.HasPrefix(text, c.Summary()) || !strings.Contains(text, " · missed exact #3 docs/m2.md · …") || strings.Contains(text, "m3.md") {
		t.Errorf("ANN: %q %v", text, bad)
	}
	refused := &retrieval.Diagnosis{Notes: []string{"exact search refused", "try again"}}
	if text, bad := DiagStatus(refused, true, nil); !bad || text != "exact search refused · try again" {
		t.Errorf("refused: %q %v", text, bad)
	}
}
