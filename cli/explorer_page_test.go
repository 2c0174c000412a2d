package cli

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ragscope/ui"
)

// TestTUIPageView: on the demo and on the in-process Qdrant, p on the
// first result opens its page's chunks in the explorer (the backend's
// page lister and embedding model are wired), and esc closes it.
func TestTUIPageView(t *testing.T) {
	_, _, qenv := fakes(t)
	for _, tc := range []struct {
		name  string
		env   map[string]string
		model string
	}{
		{"demo", nil, "reads whole chunks"},
		{"qdrant", qenv, "over embed-english-v3.0's 512 tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tuiOptionsFor(t, tc.env)
			if opts.PageChunks == nil || !opts.EmbedLimit.Known {
				t.Fatalf("page view not wired: lister %v, limit %+v", opts.PageChunks != nil, opts.EmbedLimit)
			}
			d := newTUIDriver(t, opts)
			d.ask("What is ROS 2?")
			d.until("results", 10*time.Second, idle)
			d.keys("p")
			d.until("the page", 10*time.Second, func(m ui.Model) bool {
				s := screen(m)
				return strings.Contains(s, "◆ hit #") && strings.Contains(s, "chunks ·")
			})
			s := screen(d.m)
			if !strings.Contains(s, "Page · ") || !strings.Contains(d.m.Status(), tc.model) {
				t.Fatalf("page view: status %q\n%s", d.m.Status(), s)
			}
			d.keys(tea.KeyPressMsg{Code: tea.KeyEsc})
			if d.m.Focus() != "results" || strings.Contains(screen(d.m), "Page · ") {
				t.Fatalf("esc: focus %q\n%s", d.m.Focus(), screen(d.m))
			}
		})
	}
}
