package cli

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ragscope/ui"
)

// TestTUIExpectedSource: on the demo and on the in-process Qdrant, w
// opens the picker over the collection's pages (listed from the
// backend), the picked page shows in the results with its rank, score
// and what cut it (the diagnosis `query --expect` prints), and on Qdrant
// W runs the ANN check for the question on show.
func TestTUIExpectedSource(t *testing.T) {
	_, _, qenv := fakes(t)
	for _, tc := range []struct {
		name string
		env  map[string]string
		ann  bool
	}{
		{"demo", nil, false},
		{"qdrant", qenv, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tuiOptionsFor(t, tc.env)
			if opts.Expect.Diagnose == nil || opts.Expect.Sources == nil || opts.Expect.ANN != tc.ann {
				t.Fatalf("expected sources not wired: %+v", opts.Expect)
			}
			d := newTUIDriver(t, opts)
			d.ask("What is ROS 2?")
			d.until("results", 10*time.Second, idle)
			d.keys("w")
			d.until("the pages", 10*time.Second, func(m ui.Model) bool {
				return strings.Contains(screen(m), "expected source ›") && strings.Contains(screen(m), "[ ] docs/")
			})
			// The second entry: a page or one of its sections.
			d.keys(tea.KeyPressMsg{Code: tea.KeyDown}, tea.KeyEnter)
			d.until("the diagnosis", 10*time.Second, func(m ui.Model) bool {
				return strings.HasPrefix(m.Status(), "expected ")
			})
			s := screen(d.m)
			if !strings.Contains(s, "◇ expected") {
				t.Fatalf("no expected row; status %q\n%s", d.m.Status(), s)
			}
			if !tc.ann {
				return
			}
			d.keys("W")
			d.until("the ANN check", 10*time.Second, func(m ui.Model) bool {
				return strings.HasPrefix(m.Status(), "ANN recall@")
			})
		})
	}
}
