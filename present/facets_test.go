package present

import (
	"testing"

	"ragscope/retrieval"
)

func TestFacetWithLabel(t *testing.T) {
	c := retrieval.Chunk{Module: "module-1", Chapter: "nodes", Extra: map[string]string{retrieval.ExtraModuleLabel: "Module 1: ROS 2", retrieval.ExtraChapterLabel: "nodes"}}
	if got := Module(&c); got != "module-1 (Module 1: ROS 2)" {
		t.Errorf("Module = %q", got)
	}
	if got := Chapter(&c); got != "nodes" {
		t.Errorf("Chapter with a label equal to the value = %q", got)
	}
	if got := FacetWithLabel("", "Label"); got != "" {
		t.Errorf("a label without a value = %q", got)
	}
	if got := Module(&retrieval.Chunk{Module: "m"}); got != "m" {
		t.Errorf("no Extra = %q", got)
	}
}
