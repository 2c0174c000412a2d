package cli

import (
	tea "charm.land/bubbletea/v2"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/store/qdrant/qdranttest"
	"ragscope/ui"
)

// The explorer on a hybrid Qdrant collection: once the stats read the
// collection the header says how it is searched (the dense arm naming
// the query embedder's model), and each result row shows the hit's rank
// and score in each arm and in the fusion, as `query` prints them.
func TestExplorerHybridQdrant(t *testing.T) {
	_, _, env := fakes(t)
	e := with(env, "QDRANT_COLLECTION", qdranttest.CollectionHybrid)
	const head = "hybrid: dense (embed-english-v3.0) + bm25 (qdrant/bm25), RRF k=2"
	d := newTUIDriver(t, tuiOptionsFor(t, e))
	d.send(tea.WindowSizeMsg{Width: 160, Height: 40})
	d.until("the header's search", 10*time.Second, func(m ui.Model) bool {
		return strings.Contains(strings.SplitN(screen(m), "\n", 2)[0], head)
	})
	d.ask("Whisper voice commands")
	d.until("results", 10*time.Second, idle)
	code, out, errs := run(t, e, "", "query", "-k", "5", "Whisper voice commands")
	if code != ExitOK {
		t.Fatalf("query: exit %d: %s", code, errs)
	}
	_, rest, _ := strings.Cut(out, "\n 1.")
	var arms string
	for _, line := range strings.Split(rest, "\n") {
		if _, after, ok := strings.Cut(line, "dense #"); ok {
			arms = "dense #" + after
			break
		}
	}
	if arms == "" || !strings.Contains(arms, " · fused #1 ") {
		t.Fatalf("query prints no arms for hit 1:\n%s", out)
	}
	if s := screen(d.m); !strings.Contains(s, arms) {
		t.Errorf("the explorer's first row has no %q:\n%s", arms, s)
	}
}
