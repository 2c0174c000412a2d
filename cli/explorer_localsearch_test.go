package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ragscope/ui"
)

// resultRow is a results pane row: rank, score, the start of the title.
var resultRow = regexp.MustCompile(`[│┃] (?:▌ )? *(\d+) (\d\.\d{3}) [█░]+ ([^│┃]*?)\s*[│┃]`)

// shownResults are the result rows on screen, in rank order.
func shownResults(m ui.Model) []string {
	var rows []string
	for _, r := range resultRow.FindAllStringSubmatch(screen(m), -1) {
		rows = append(rows, r[1]+" "+r[2]+" "+r[3])
	}
	return rows
}

// headerLine is the header's first line.
func headerLine(m ui.Model) string {
	line, _, _ := strings.Cut(screen(m), "\n")
	return line
}

// On the demo the settings have a "local search" row: each change asks
// the question on show again in the new mode, as a new turn, with the
// header naming the mode; "What is ROS 2?" ranks differently in each.
// The turn list tags the turns not in the default mode, the comparison
// names both modes, and bringing a turn back brings back its mode (the
// next re-run searches in it).
func TestTUILocalSearchSetting(t *testing.T) {
	opts := tuiOptionsFor(t, nil)
	if ls := opts.LocalSearch; !slices.Equal(ls.Modes, []string{"bm25", "hybrid", "embedder"}) || ls.Mode != "bm25" || ls.Label == nil {
		t.Fatalf("local search setup %+v", ls)
	}
	if strings.Contains(opts.Backend.Model, "hybrid") || strings.Contains(opts.Backend.Model, "BM25") {
		t.Errorf("the model part %q names the mode, which the explorer adds", opts.Backend.Model)
	}
	d := newTUIDriver(t, opts)
	d.ask("What is ROS 2?")
	d.until("results", 10*time.Second, idle)
	bm25 := shownResults(d.m)
	if len(bm25) != 5 || !strings.Contains(headerLine(d.m), "· BM25 + title match ·") {
		t.Fatalf("bm25: %q\n%s", bm25, screen(d.m))
	}
	d.keys("s")
	for range 4 { // top_k, threshold, dedup, left-out, then local search
		d.keys("j")
	}
	if v := screen(d.m); !strings.Contains(v, "▌ local search ‹ bm25 › (1/3) BM25 + title match") {
		t.Fatalf("the local search row is not under the cursor:\n%s", v)
	}
	runs := map[string][]string{"bm25": bm25}
	for i, mode := range []struct{ name, header string }{{"hybrid", "· hybrid 0.8×cosine"}, {"embedder", "· embedder only ·"}} {
		d.keys("l")
		d.until(mode.name+" re-run", 10*time.Second, func(m ui.Model) bool { return len(m.Turns()) == i+2 && idle(m) })
		got := shownResults(d.m)
		if !strings.Contains(headerLine(d.m), mode.header) || len(got) != 5 || !strings.Contains(screen(d.m), "local search ‹ "+mode.name+" ›") {
			t.Fatalf("%s: header %q, results %q\n%s", mode.name, headerLine(d.m), got, screen(d.m))
		}
		for other, rows := range runs {
			if slices.Equal(got, rows) {
				t.Errorf("%s ranks as %s does: %q", mode.name, other, got)
			}
		}
		runs[mode.name] = got
	}
	if !strings.Contains(runs["hybrid"][0], "What Is ROS 2?") {
		t.Errorf("hybrid: %q", runs["hybrid"])
	}
	if !strings.Contains(shownResults(d.m)[0], "Unity for Human-Robot") {
		t.Errorf("embedder alone: %q", shownResults(d.m))
	}

	// The turns: #3 (embedder, on show) against #2 (hybrid).
	d.keys(tea.KeyPressMsg{Code: tea.KeyEscape}, "t")
	if v := screen(d.m); !strings.Contains(v, "local search hybrid→embedder") || !strings.Contains(v, "#1 What is ROS 2?") || !strings.Contains(v, "#2 [hybrid] What is ROS 2?") || !strings.Contains(v, "#3 [embedder] What") {
		t.Fatalf("the comparison does not name both modes:\n%s", v)
	}
	// Bring back #1: bm25 again, in the header and the settings; a
	// settings change re-runs it in bm25.
	d.keys("k", tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until("turn #1 on show", 5*time.Second, func(m ui.Model) bool { return strings.Contains(m.Status(), "Showing turn #1") })
	if h := headerLine(d.m); !strings.Contains(h, "· BM25 + title match ·") || !slices.Equal(shownResults(d.m), bm25) {
		t.Fatalf("turn #1 brought back: header %q, results %q", h, shownResults(d.m))
	}
	d.keys("s", "k", "k", "k", "k", "l") // top_k 5 → 6
	d.until("the re-run of #1", 10*time.Second, func(m ui.Model) bool { return len(m.Turns()) == 4 && idle(m) })
	if got := shownResults(d.m); len(got) != 6 || !slices.Equal(got[:5], bm25) || !strings.Contains(screen(d.m), "local search ‹ bm25 ›") {
		t.Fatalf("the re-run of #1 is not in bm25: %q\n%s", got, screen(d.m))
	}
}

// A local docs folder offers the modes too, starting with the
// configured one; Qdrant ranks one way: no local search row, no mode in
// the header.
func TestTUILocalSearchOffered(t *testing.T) {
	docs := filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "torque.md"), []byte("# Torque\n\n## Control\n\nMotors make torque.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := tuiOptionsFor(t, map[string]string{"RAGSCOPE_DOCS": docs, "RAGSCOPE_LOCAL_SEARCH": "embedder"})
	if ls := opts.LocalSearch; opts.Backend.Kind != "local" || len(ls.Modes) != 3 || ls.Mode != "embedder" {
		t.Fatalf("local docs: backend %q, local search %+v", opts.Backend.Kind, ls)
	}

	_, _, env := fakes(t)
	opts = tuiOptionsFor(t, env)
	if len(opts.LocalSearch.Modes) != 0 {
		t.Fatalf("Qdrant offers local search modes: %+v", opts.LocalSearch)
	}
	d := newTUIDriver(t, opts)
	d.keys(tea.KeyPressMsg{Code: tea.KeyEscape}, "s")
	if v := screen(d.m); !strings.Contains(v, "top_k") || strings.Contains(v, "local search") || strings.Contains(v, "hybrid") {
		t.Fatalf("Qdrant settings:\n%s", v)
	}
}
