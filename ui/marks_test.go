package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/ui/common"
	"ragscope/ui/settings"
)

const marksSeed = `# hand-written cases; this comment stays
cases:
  - id: old
    question: What is a topic?   # and this one
`

// marksModel is an explorer whose golden file is a copy of seed (none
// when seed is empty) in a temporary folder.
func marksModel(t *testing.T, seed string, fe *fakeEval) (Model, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "golden.yaml")
	if seed != "" {
		if err := os.WriteFile(path, []byte(seed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts, _ := testOptions(&fakeRetriever{})
	opts.GoldenFile = path
	if fe != nil {
		opts.Eval = fe.Run
		opts.EvalDefault = "demo golden set"
	}
	return sized(t, opts, 120, 40), path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMarkHitsAndSaveTheTurn(t *testing.T) {
	m, path := marksModel(t, marksSeed, &fakeEval{rep: fakeReport()})
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, m.setFocus(focusResults))
	// #1 relevant, #2 not relevant, #3 marked then cleared.
	m = feed(t, m, keyRunes("m"), keyRunes("j"), keyRunes("M"), keyRunes("j"), keyRunes("m"), keyRunes("u"))
	scr := screen(m)
	if strings.Count(scr, "✓ relevant") != 1 || strings.Count(scr, "✗ not relevant") != 1 {
		t.Fatalf("marks not in the list:\n%s", scr)
	}
	m = feed(t, m, keyRunes("k"))
	if !strings.Contains(screen(m), "marked ✗ not relevant") {
		t.Fatalf("the detail pane does not show the mark:\n%s", screen(m))
	}
	m = feed(t, m, keyRunes("S"))
	if want := "saved case-2 to " + path + " (2 cases)"; !strings.HasPrefix(m.Status(), want) {
		t.Fatalf("status %q, want %q…", m.Status(), want)
	}
	got := readFile(t, path)
	if !strings.HasPrefix(got, marksSeed) {
		t.Fatalf("the file's first lines changed:\n%s", got)
	}
	set, err := eval.Parse([]byte(got), path)
	if err != nil {
		t.Fatal(err)
	}
	c := set.Cases[1]
	if c.ID != "case-2" || c.Question != "How do nodes talk?" ||
		strings.Join(c.Expect.DocPaths, ",") != "docs/module-1-ros2/00-nodes-and-topics.md" ||
		strings.Join(c.Expect.NotRelevant.DocPaths, ",") != "docs/module-2-simulation/01-services.md" {
		t.Fatalf("saved case %+v", c)
	}
	// The eval view now runs that file.
	if m.eval.Path() != path {
		t.Fatalf("eval path %q", m.eval.Path())
	}

	// Saving again asks first; any other key keeps the case.
	m = feed(t, m, keyRunes("S"))
	if !strings.Contains(m.Status(), "Case case-2 (line 5 of "+path+") already asks this question: press S again") {
		t.Fatalf("status %q", m.Status())
	}
	m = feed(t, m, keyRunes("j"))
	if !strings.Contains(m.Status(), "Not replaced") {
		t.Fatalf("status %q", m.Status())
	}
	// (One feed per press: a person presses S again after the question.)
	m = feed(t, m, keyRunes("S"))
	m = feed(t, m, keyRunes("S"))
	if !strings.HasPrefix(m.Status(), "replaced case-2 in "+path+" (2 cases)") {
		t.Fatalf("status %q", m.Status())
	}
	if after := readFile(t, path); after != got {
		t.Fatalf("replacing with the same marks changed the file:\n%s", after)
	}
}

func TestSaveNeverOverwritesInvalidYAML(t *testing.T) {
	bad := "cases:\n  - question: a\n    expect: [unclosed\n"
	m, path := marksModel(t, bad, nil)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, m.setFocus(focusResults), keyRunes("m"), keyRunes("S"))
	if !strings.HasPrefix(m.Status(), "Not saved: "+path+":") || !strings.Contains(m.Status(), "not valid YAML") {
		t.Fatalf("status %q", m.Status())
	}
	if got := readFile(t, path); got != bad {
		t.Fatalf("the invalid file was written:\n%s", got)
	}
}

func TestSaveSelectedTextTurn(t *testing.T) {
	m, path := marksModel(t, "", nil)
	m = feed(t, m, typeText("What is this?")...)
	m = feed(t, m, ctrl('t'), tea.PasteMsg{Content: "Topics carry messages.\nNodes publish."}, ctrl('r'))
	m = feed(t, m, m.setFocus(focusResults), keyRunes("S"))
	if !strings.HasPrefix(m.Status(), "saved case-1 to "+path+" (1 case)") {
		t.Fatalf("status %q", m.Status())
	}
	set, err := eval.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := set.Cases[0]
	if c.Mode != retrieval.ModeSelectedText || c.SelectedText != "Topics carry messages.\nNodes publish." || c.Question != "What is this?" {
		t.Fatalf("saved %+v", c)
	}
}

func TestOpenedCaseBringsItsMarksBack(t *testing.T) {
	rep := fakeReport()
	// The first case expects chunk-00's page and marks chunk-01's not
	// relevant; the third is unlabelled.
	rep.Cases[0].Expect = eval.Expect{
		DocPaths:    []string{"docs/module-1-ros2/00-nodes-and-topics.md"},
		NotRelevant: eval.NotRelevant{DocPaths: []string{"docs/module-2-simulation/01-services.md"}},
	}
	seed := "cases:\n  - id: isaac-costmap\n    question: What do costmaps mark?\n"
	m, path := marksModel(t, seed, &fakeEval{rep: rep})
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("e"), keyType(tea.KeyEnter))
	m = feed(t, m, keyType(tea.KeyEnter))
	scr := screen(m)
	if !strings.Contains(scr, "✓ relevant") || !strings.Contains(scr, "✗ not relevant") {
		t.Fatalf("the case's marks are not back:\n%s", scr)
	}
	if marks := m.turns.Current().Marks; marks["chunk-00"] != common.MarkRelevant || marks["chunk-01"] != common.MarkNotRelevant || len(marks) != 2 {
		t.Fatalf("marks %v", marks)
	}
	// The unlabelled case: mark a hit and save, replacing it.
	m = feed(t, m, keyRunes("e"), keyRunes("j"), keyRunes("j"), keyType(tea.KeyEnter))
	if len(m.turns.Current().Marks) != 0 {
		t.Fatalf("an unlabelled case brought marks: %v", m.turns.Current().Marks)
	}
	m = feed(t, m, keyRunes("m"), keyRunes("S"))
	m = feed(t, m, keyRunes("S"))
	if !strings.HasPrefix(m.Status(), "replaced isaac-costmap in "+path) {
		t.Fatalf("status %q", m.Status())
	}
	set, err := eval.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c := set.Cases[0]; c.ID != "isaac-costmap" || !c.Expect.HasRelevance() || eval.KindOf(c) != eval.KindRanking {
		t.Fatalf("the case is still unlabelled: %+v", c)
	}
}

func TestGoldenFileSettingsRow(t *testing.T) {
	m, _ := marksModel(t, "", nil)
	m = ask(t, m, "nodes")
	m = feed(t, m, m.setFocus(focusSettings))
	m = toRow(t, m, settings.RowGolden)
	m = feed(t, m, keyType(tea.KeyEnter), ctrl('u'))
	m = feed(t, m, typeText("sets/mine.yaml")...)
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.goldenPath != "sets/mine.yaml" || !strings.Contains(m.Status(), "S now saves the turn on show to sets/mine.yaml") {
		t.Fatalf("path %q, status %q", m.goldenPath, m.Status())
	}
	if !strings.Contains(screen(m), "golden file  sets/mine.yaml") {
		t.Fatalf("row not updated:\n%s", screen(m))
	}
	// esc drops an edit.
	m = feed(t, m, keyType(tea.KeyEnter), keyRunes("x"), keyType(tea.KeyEsc))
	if m.goldenPath != "sets/mine.yaml" || m.settings.GoldenEdit != nil {
		t.Fatalf("path %q after esc", m.goldenPath)
	}
}

func TestEvalViewShowsTheLabelsNote(t *testing.T) {
	rep := fakeReport()
	rep.Cases[0].Labels = &eval.CaseLabels{Note: "a hit marked not relevant (#1) ranked above the first relevant hit #3"}
	m, _ := evalModel(t, &fakeEval{rep: rep})
	m = feed(t, m, keyRunes("e"), keyType(tea.KeyEnter))
	if !strings.Contains(screen(m), "a hit marked not relevant (#1) ranked above the first relevant hit #3") {
		t.Fatalf("the case's note is not shown:\n%s", screen(m))
	}
}

// A case opened from a set other than the golden file saves back into
// that set: marking an imported, unlabelled case's hits labels it there,
// and the golden file setting is left alone.
func TestOpenedCaseSavesIntoItsOwnFile(t *testing.T) {
	rep := fakeReport()
	m, golden := marksModel(t, "", &fakeEval{rep: rep})
	setPath := filepath.Join(t.TempDir(), "imported.yaml")
	if err := os.WriteFile(setPath, []byte("# imported\ncases:\n  - id: isaac-costmap\n    question: What do costmaps mark?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("e"))
	m = feed(t, m, typeText(setPath)...)
	m = feed(t, m, keyType(tea.KeyEnter))
	m = feed(t, m, keyRunes("j"), keyRunes("j"), keyType(tea.KeyEnter))
	m = feed(t, m, keyRunes("m"), keyRunes("S"))
	m = feed(t, m, keyRunes("S"))
	if !strings.HasPrefix(m.Status(), "replaced isaac-costmap in "+setPath) {
		t.Fatalf("status %q", m.Status())
	}
	set, err := eval.LoadFile(setPath)
	if err != nil {
		t.Fatal(err)
	}
	if c := set.Cases[0]; c.ID != "isaac-costmap" || eval.KindOf(c) != eval.KindRanking || !strings.HasPrefix(readFile(t, setPath), "# imported\n") {
		t.Fatalf("the imported case is not labelled in place: %+v\n%s", c, readFile(t, setPath))
	}
	if _, err := os.Stat(golden); !os.IsNotExist(err) {
		t.Fatalf("the golden file was written: %v", err)
	}
}
