package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/ui/settings"
)

// With hundreds of tags, a value is found by typing part of it: letters
// are text while the picker is open (q does not quit), the best match
// comes first, enter toggles it into the filter, esc closes the picker.
func TestFacetPickerTypeToFilter(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	tags := []string{"ros2", "simulation"}
	for i := range 300 {
		tags = append(tags, fmt.Sprintf("tag-%03d", i))
	}
	tags = append(tags, "navigation", "nav2-planner")
	opts.Stats = func(context.Context) (retrieval.Stats, error) {
		return retrieval.Stats{Points: 42, Facets: map[string][]string{"tag": tags}}, nil
	}
	m := sized(t, opts, 120, 40)
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("s"))
	for m.settings.Row != settings.RowTag {
		m = feed(t, m, keyRunes("j"))
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.settings.Pick == nil || !m.typing() {
		t.Fatal("enter on the tag row did not open the picker")
	}
	m = feed(t, m, typeText("qc")...)
	if m.settings.Pick == nil || m.Focus() != "settings" || m.settings.Pick.Input.Value() != "qc" {
		t.Fatalf("a letter left the picker (focus %s)", m.Focus())
	}
	m = feed(t, m, keyType(tea.KeyBackspace), keyType(tea.KeyBackspace))
	m = feed(t, m, typeText("navgtn")...)
	if pk := m.settings.Pick; len(pk.Shown) == 0 || pk.Labels[pk.Shown[0]] != "navigation" {
		t.Fatalf("matches for navgtn: %v of %q", pk.Shown, pk.Labels)
	}
	v := screen(m)
	if !strings.Contains(v, "tag › navgtn") || !strings.Contains(v, "[ ] navigation") || strings.Contains(v, "tag-001") {
		t.Fatalf("picker view:\n%s", v)
	}
	if h := ansi.Strip(m.helpView()); !strings.Contains(h, "toggle value") || strings.Contains(h, "q quit") {
		t.Fatalf("help while picking: %s", h)
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	if !slices.Equal(m.params.Filters.Tags, []string{"navigation"}) {
		t.Fatalf("filter tags %q", m.params.Filters.Tags)
	}
	if !strings.Contains(screen(m), "[x] navigation") {
		t.Fatal("toggled value not marked")
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.settings.Pick != nil || m.Focus() != "settings" || m.typing() {
		t.Fatalf("esc: picker open %v, focus %s", m.settings.Pick != nil, m.Focus())
	}
	if !strings.Contains(screen(m), "any of: navigation") {
		t.Fatal("active filter not shown after the picker closed")
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.Focus() != "results" {
		t.Fatalf("second esc: focus %s", m.Focus())
	}
}
