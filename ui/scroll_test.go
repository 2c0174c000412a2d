package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/settings"
)

// cursorLine is the screen line holding the list cursor "▌ " and want.
func cursorLine(scr, want string) bool {
	for _, l := range strings.Split(scr, "\n") {
		if i := strings.Index(l, "▌ "); i >= 0 && strings.HasPrefix(strings.TrimLeft(l[i+len("▌ "):], " "), want) {
			return true
		}
	}
	return false
}

// The settings list scrolls with its cursor at 80x24 and smaller, and says
// how many rows are hidden (issue 25, point 7).
func TestSettingsScrollWithCursor(t *testing.T) {
	names := []string{"top_k", "threshold", "dedup", "left-out", "rerank", "rr model", "candidates", "relevance", "answer", "golden file", "module", "chapter", "type", "tag"}
	for _, size := range [][2]int{{80, 24}, {70, 20}, {60, 15}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			opts, _ := testOptions(&fakeRetriever{})
			m := sized(t, opts, size[0], size[1])
			m = ask(t, m, "nodes")
			m = feed(t, m, m.setFocus(focusSettings))
			if m.Focus() != "settings" {
				t.Fatalf("focus %q", m.Focus())
			}
			first := screen(m)
			if !strings.Contains(first, "more below") {
				t.Errorf("%dx%d: no \"more below\" hint:\n%s", size[0], size[1], first)
			}
			for i, name := range names {
				if i > 0 {
					m = feed(t, m, keyType('j'))
				}
				if scr := screen(m); !cursorLine(scr, name) {
					t.Fatalf("%dx%d: cursor on %q not drawn:\n%s", size[0], size[1], name, scr)
				}
			}
			last := screen(m)
			if !strings.Contains(last, "above") {
				t.Errorf("%dx%d: no \"above\" hint at the last row:\n%s", size[0], size[1], last)
			}
			// Back up to the top: the first row shows again.
			for range names {
				m = feed(t, m, keyType('k'))
			}
			if scr := screen(m); !cursorLine(scr, "top_k") {
				t.Fatalf("%dx%d: cursor on top_k not drawn:\n%s", size[0], size[1], scr)
			}
		})
	}
}

// The facet picker follows its cursor and says how many values are
// hidden (issue 25, point 7: every list scrolls and says "↓ N more").
func TestFacetPickerScrollHint(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	var tags []string
	for i := range 40 {
		tags = append(tags, fmt.Sprintf("tag-%03d", i))
	}
	opts.Stats = func(context.Context) (retrieval.Stats, error) {
		return retrieval.Stats{Points: 42, Facets: map[string][]string{"tag": tags}}, nil
	}
	m := sized(t, opts, 80, 24)
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("s"))
	for m.settings.Row != settings.RowTag {
		m = feed(t, m, keyRunes("j"))
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	if scr := screen(m); !strings.Contains(scr, "more below") {
		t.Fatalf("no \"more below\" hint:\n%s", scr)
	}
	for range 39 {
		m = feed(t, m, keyType(tea.KeyDown))
	}
	scr := screen(m)
	if !cursorLine(scr, "[ ] tag-039") || !strings.Contains(scr, "above") {
		t.Fatalf("the last value or the \"above\" hint not drawn:\n%s", scr)
	}
}
