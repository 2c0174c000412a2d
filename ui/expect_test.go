package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/results"
)

// fakeDiagnose says where refs of the fake corpus went: the chunk of the
// ref's doc path at its corpus rank, cut by top_k beyond it; and an ANN
// check that missed exact #3.
type fakeDiagnose struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeDiagnose) diagnose(_ context.Context, q retrieval.Query, _ string, refs []retrieval.ExpectRef, ann bool) (retrieval.Diagnosis, error) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf("%s|%d|%v", q.Question, len(refs), ann))
	f.mu.Unlock()
	var d retrieval.Diagnosis
	corpus := fakeCorpus(20)
	for _, r := range refs {
		e := retrieval.Expected{Ref: r.Raw, Cut: retrieval.CutNotFound, Detail: "not in the collection"}
		for i, sc := range corpus {
			if sc.Chunk.DocPath != r.DocPath {
				continue
			}
			s := sc.Score
			rank := i + 1
			if i > 2 {
				rank-- // chunk 2 is a duplicate
			}
			e = retrieval.Expected{Ref: r.Raw, PointID: sc.Chunk.ID, DocPath: sc.Chunk.DocPath, Section: sc.Chunk.Section, Rank: rank, ExactRank: rank, Score: &s}
			if rank > q.TopK {
				e.Cut, e.Detail = retrieval.CutTopK, fmt.Sprintf("cut by top_k %d (rank %d of %d)", q.TopK, rank, q.TopK)
			} else {
				e.Detail = fmt.Sprintf("in the results at #%d", rank)
			}
			break
		}
		d.Expected = append(d.Expected, e)
	}
	if ann {
		d.ANN = &retrieval.ANNCheck{K: q.TopK, Recall: 0.8, Approximate: true, Missed: []retrieval.ANNMiss{{ExactRank: 3, Score: 0.7, PointID: "chunk-02", DocPath: "docs/x.md"}}}
	}
	return d, nil
}

func expectOptions(f *fakeRetriever, kind string) (Options, *fakeDiagnose) {
	opts, _ := testOptions(f)
	opts.Backend.Kind = kind
	fd := &fakeDiagnose{}
	opts.Expect = ExpectSetup{
		Diagnose: fd.diagnose,
		ANN:      kind == "qdrant",
		Sources: func(context.Context) ([]results.DocSource, error) {
			var out []results.DocSource
			for _, sc := range fakeCorpus(9) {
				out = append(out, results.DocSource{Ref: sc.Chunk.DocPath}, results.DocSource{Ref: sc.Chunk.DocPath + "#overview", Label: sc.Chunk.DocPath + " · Overview"})
			}
			return out, nil
		},
	}
	return opts, fd
}

// w opens a fuzzy picker over the collection's pages; the picked page
// shows in the results at its real rank with its score and what cut it,
// and a re-run with a larger top_k brings it in, which turn compare shows.
func TestExpectedSourceInTheResults(t *testing.T) {
	f := &fakeRetriever{}
	opts, fd := expectOptions(f, "demo")
	opts.Defaults.Threshold, opts.Defaults.TopK = 0, 3
	m := sized(t, opts, 180, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("w"))
	if v := screen(m); !strings.Contains(v, "expected source ›") || !strings.Contains(v, "docs/module-2-simulation/05-urdf-basics.md") {
		t.Fatalf("picker:\n%s", v)
	}
	// Letters are text in the picker: "urdf" filters, enter picks.
	m = feed(t, m, typeText("04launchfiles.md")...)
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.results.Pick != nil {
		t.Fatalf("the picker stays open:\n%s", screen(m))
	}
	v := screen(m)
	if !strings.Contains(v, "◇ expected #4 0.500 · cut by top_k 3 (rank 4 of 3)") {
		t.Fatalf("no expected row:\n%s", v)
	}
	if !strings.Contains(m.Status(), "expected docs/module-1-ros2/04-launch-files.md ranked #4 (0.500), cut by top_k 3") {
		t.Fatalf("status %q", m.Status())
	}
	// The row sits after the last kept hit, and the detail tells it.
	last := -1
	for i, it := range m.results.Items {
		if it.Pseudo {
			last = i
		}
	}
	if last != len(m.results.Items)-1 {
		t.Fatalf("expected row at %d of %d", last, len(m.results.Items))
	}

	// top_k 3 → 5: the re-run is a new turn that remembers the expected
	// source, now in the results and marked there.
	m = feed(t, m, keyRunes("s"), keyRunes("l"), keyRunes("l"))
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	if len(m.turns.Turns) != 2 || len(m.turns.Turns[1].Expect) != 1 {
		t.Fatalf("turns %+v", m.turns.Turns)
	}
	if v := screen(m); strings.Contains(v, "cut by top_k") || !strings.Contains(v, "◇ expected · module-1-ros2 / launch-files") {
		t.Fatalf("after top_k 7:\n%s", v)
	}
	m = feed(t, m, keyRunes("t"))
	if v := screen(m); !strings.Contains(v, "expected docs/module-1-ros2/04-launch-files.md #4 → #4 (cut by top_k 3 (rank 4 of 3) → kept)") {
		t.Fatalf("compare:\n%s", v)
	}
	if len(fd.calls) != 2 {
		t.Fatalf("diagnoses %q", fd.calls)
	}
	// A new question starts with no expected source.
	m = feed(t, m, keyRunes("i"))
	m = feed(t, m, typeText(" more")...)
	m = feed(t, m, keyType(tea.KeyEnter))
	if n := len(m.turns.Turns); len(m.turns.Turns[n-1].Expect) != 0 || strings.Contains(screen(m), "◇ expected") {
		t.Fatalf("a new question keeps the expected source:\n%s", screen(m))
	}
}

// A pasted URL is taken as it is; a ref that matches nothing says so with
// the closest doc paths; picking the same ref again drops it.
func TestExpectedSourcePasteAndNotFound(t *testing.T) {
	opts, _ := expectOptions(&fakeRetriever{}, "demo")
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("w"))
	m = feed(t, m, tea.PasteMsg{Content: "https://book.example.org/docs/module-1-ros2/00-nodes-and-topic"}, keyType(tea.KeyEnter))
	if !strings.Contains(m.Status(), "not in the collection; closest: docs/module-1-ros2/00-nodes-and-topics.md") {
		t.Fatalf("status %q", m.Status())
	}
	if v := screen(m); !strings.Contains(v, "◇ expected · not in the collection") {
		t.Fatalf("no row for the missing source:\n%s", v)
	}
	m = feed(t, m, keyRunes("w"))
	m = feed(t, m, tea.PasteMsg{Content: "https://book.example.org/docs/module-1-ros2/00-nodes-and-topic"}, keyType(tea.KeyEnter))
	if strings.Contains(screen(m), "◇ expected") || len(m.turns.Turns[0].Expect) != 0 {
		t.Fatalf("picking again does not drop it:\n%s", screen(m))
	}
}

// W runs the ANN check for the question on show (Qdrant only).
func TestANNCheckKey(t *testing.T) {
	opts, fd := expectOptions(&fakeRetriever{}, "qdrant")
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("W"))
	if s := m.Status(); !strings.Contains(s, "ANN recall@5 0.80") || !strings.Contains(s, "missed exact #3 docs/x.md") {
		t.Fatalf("status %q", s)
	}
	if len(fd.calls) != 1 || fd.calls[0] != "nodes|0|true" {
		t.Fatalf("calls %q", fd.calls)
	}
	// The demo searches exactly: no ANN check.
	opts, fd = expectOptions(&fakeRetriever{}, "demo")
	m = sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	if m = feed(t, m, keyRunes("W")); m.Running() || len(fd.calls) != 0 {
		t.Fatalf("the demo ran the ANN check")
	}
}

// A diagnosis that a later one replaced is dropped when it comes late.
func TestStaleDiagnosisIsDropped(t *testing.T) {
	opts, _ := expectOptions(&fakeRetriever{}, "demo")
	m := sized(t, opts, 180, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("w"))
	m = feed(t, m, typeText("04launchfiles.md")...)
	m = feed(t, m, keyType(tea.KeyEnter))
	seq := m.turns.Turns[0].DiagSeq
	stale := results.DiagMsg{N: 1, Seq: seq - 1, Diag: retrieval.Diagnosis{Expected: []retrieval.Expected{{Ref: "old", Cut: retrieval.CutNotFound, Detail: "not in the collection"}}}}
	m = feed(t, m, stale)
	if d := m.turns.Turns[0].Diag; d == nil || len(d.Expected) != 1 || d.Expected[0].Ref == "old" || strings.Contains(screen(m), "ref old") {
		t.Fatalf("a stale diagnosis replaced the current one: %+v", d)
	}
}

// A Qdrant that refuses exact search: W says so with the diagnosis note.
func TestANNCheckRefused(t *testing.T) {
	opts, _ := expectOptions(&fakeRetriever{}, "qdrant")
	opts.Expect.Diagnose = func(context.Context, retrieval.Query, string, []retrieval.ExpectRef, bool) (retrieval.Diagnosis, error) {
		return retrieval.Diagnosis{Notes: []string{"the server refused exact search: no ANN check"}}, nil
	}
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("W"))
	if s := m.Status(); s != "the server refused exact search: no ANN check" {
		t.Fatalf("status %q", s)
	}
}
