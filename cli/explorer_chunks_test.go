package cli

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ragscope/ui"
)

// TestTUIChunksView: on the demo, C opens the chunk audit of the whole
// collection in the explorer (the backend's walker is wired), summary
// first as `ragscope chunks` words it, and esc closes it.
func TestTUIChunksView(t *testing.T) {
	opts := tuiOptionsFor(t, nil)
	if opts.Audit == nil {
		t.Fatal("chunk audit not wired")
	}
	d := newTUIDriver(t, opts)
	d.keys(tea.KeyPressMsg{Code: tea.KeyEsc})
	d.keys("C")
	d.until("the audit", 20*time.Second, func(m ui.Model) bool {
		return strings.Contains(screen(m), "Chunks · audit of ")
	})
	s := screen(d.m)
	for _, want := range []string{"Summary:", "reads whole chunks", "Tokens per chunk:"} {
		if !strings.Contains(s, want) {
			t.Errorf("chunks view lacks %q:\n%s", want, s)
		}
	}
	if !strings.HasPrefix(d.m.Status(), "Chunk audit: ") {
		t.Errorf("status = %q", d.m.Status())
	}
	d.keys(tea.KeyPressMsg{Code: tea.KeyEsc})
	if d.m.Focus() != "results" || strings.Contains(screen(d.m), "Chunks · audit") {
		t.Fatalf("esc: focus %q\n%s", d.m.Focus(), screen(d.m))
	}
}
