package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/detail"
)

// The detail pane shows a module's and chapter's sidebar labels beside
// their values, not as extra payload rows.
func TestDetailShowsFacetLabels(t *testing.T) {
	p := detail.New(common.DefaultKeyMap(), common.DefaultStyles(true, colorprofile.Ascii), map[string]common.LinkStatus{})
	p.SetSize(100, 40)
	c := retrieval.Chunk{ID: "x", Text: "Text.", Module: "module-1", Chapter: "gazebo", Extra: map[string]string{
		retrieval.ExtraModuleLabel: "Module 1: ROS 2", retrieval.ExtraChapterLabel: "Gazebo worlds", "note": "kept"}}
	p.SetItem(common.Item{Hit: retrieval.Hit{Chunk: c, Rank: 1}})
	meta := p.Metadata()
	for _, want := range []string{"module-1 (Module 1: ROS 2)", "gazebo (Gazebo worlds)", "note"} {
		if !strings.Contains(meta, want) {
			t.Errorf("detail lacks %q:\n%s", want, meta)
		}
	}
	if strings.Contains(meta, retrieval.ExtraModuleLabel) || strings.Contains(meta, retrieval.ExtraChapterLabel) {
		t.Errorf("labels shown as extra rows:\n%s", meta)
	}
}
