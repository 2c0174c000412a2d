package ui

import (
	"strings"
	"testing"
)

// x says so when nothing was left out, instead of doing nothing visible
// (issue 25, point 12).
func TestDroppedToggleWithNothingLeftOutSaysSo(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Defaults.Threshold = 0
	opts.Defaults.NoDedup = true
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	if n := len(m.results.Res.Dropped); n != 0 {
		t.Fatalf("%d hits left out; the test wants none", n)
	}
	m = feed(t, m, keyRunes("x"))
	if !strings.Contains(m.Status(), "Nothing was left out") || !strings.Contains(m.Status(), "shown") {
		t.Fatalf("x: status %q", m.Status())
	}
	m = feed(t, m, keyRunes("x"))
	if !strings.Contains(m.Status(), "hidden") {
		t.Fatalf("x again: status %q", m.Status())
	}
}

// With hits left out, x shows them and the title says so; no note.
func TestDroppedToggleWithHitsLeftOut(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	before := m.Status()
	m = feed(t, m, keyRunes("x"))
	if strings.Contains(m.Status(), "Nothing was left out") || m.Status() != before || !strings.Contains(screen(m), "left out shown") {
		t.Fatalf("x: status %q\n%s", m.Status(), screen(m))
	}
}
