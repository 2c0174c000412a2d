package ui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/ui"
)

// embedLatency is one embed round trip of the fake backend: a what-if
// on a Qdrant collection embeds the edited chunk once, then ranks it.
const embedLatency = 300 * time.Millisecond

// hits is a result of n chunks, scores falling from 0.9.
type hits int

func (n hits) Retrieve(_ context.Context, q retrieval.Query) (retrieval.Result, error) {
	res := retrieval.Result{Question: q.Question, Mode: q.Mode, Hits: []retrieval.Hit{}, Dropped: []retrieval.DroppedHit{},
		Params: retrieval.Params{TopK: q.TopK, Threshold: q.Threshold, Dedup: true, Backend: "qdrant", Collection: "bench"}}
	for i := range int(n) {
		c := retrieval.Chunk{ID: fmt.Sprint(100 + i), DocPath: fmt.Sprintf("docs/page-%d.md", i), Title: fmt.Sprintf("Page %d", i),
			Section: "Overview", Text: "## Overview\n\nNodes talk over topics in this chunk.", Module: "module-1"}
		res.Hits = append(res.Hits, retrieval.Hit{Rank: i + 1, Score: 0.9 - float64(i)/20, Chunk: c,
			Citation: retrieval.Citation{URL: "https://book.example.org/docs/page", Source: "built", Title: c.Title, Section: c.Section, DocPath: c.DocPath}})
	}
	return res, nil
}

// driver runs a model as the program would: every command on its own
// goroutine, every message it returns fed back to Update, in arrival
// order.
type driver struct {
	m    ui.Model
	msgs chan tea.Msg
	done chan struct{}
}

func newDriver(opts ui.Options) *driver {
	d := &driver{m: ui.New(opts), msgs: make(chan tea.Msg, 256), done: make(chan struct{})}
	d.send(tea.WindowSizeMsg{Width: 140, Height: 40})
	d.run(d.m.Init())
	return d
}

func (d *driver) close() { close(d.done) }

// run starts cmd, flattening batches; its message reaches msgs.
func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				d.run(c)
			}
			return
		}
		if msg == nil {
			return
		}
		select {
		case d.msgs <- msg:
		case <-d.done:
		}
	}()
}

// send feeds msg to the model and starts the command it returns.
func (d *driver) send(msg tea.Msg) {
	if _, quit := msg.(tea.QuitMsg); quit {
		return
	}
	next, cmd := d.m.Update(msg)
	d.m = next.(ui.Model)
	d.run(cmd)
}

// until feeds the model the messages its commands return until its
// screen holds want, and says how long that took.
func (d *driver) until(b *testing.B, want string, limit time.Duration) time.Duration {
	b.Helper()
	t0 := time.Now()
	deadline := time.After(limit)
	for !strings.Contains(ansi.Strip(d.m.View().Content), want) {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			b.Fatalf("no %q within %s:\n%s", want, limit, ansi.Strip(d.m.View().Content))
		}
	}
	return time.Since(t0)
}

func key(s string) tea.KeyPressMsg {
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

// BenchmarkWhatIfAfterSave: in the explorer, from the save of an edited
// chunk (ctrl+s in the what-if text area) to the list showing the edit's
// would-be row, with a backend whose what-if takes one embed round trip
// (300 ms). ratio is that time over the round trip: the budget is 1.2×.
func BenchmarkWhatIfAfterSave(b *testing.B) {
	setup := ui.ExplainSetup{
		Chunk: func(_ context.Context, id, docPath string) (retrieval.Chunk, error) {
			return retrieval.Chunk{ID: id, DocPath: docPath, Text: "## Overview\n\nNodes talk over topics in this chunk."}, nil
		},
		WhatIf: func(ctx context.Context, q retrieval.Query, id string, from *retrieval.Expected, text string) (explain.WhatIf, error) {
			select {
			case <-time.After(embedLatency): // the edited chunk's embed call
			case <-ctx.Done():
				return explain.WhatIf{}, ctx.Err()
			}
			return explain.WhatIf{Ref: from.Ref, ChunkID: id, Rank: 1, Score: 0.95, FromRank: new(from.Rank), FromScore: from.Score}, nil
		},
	}
	var total time.Duration
	for b.Loop() {
		d := newDriver(ui.Options{
			Retriever: hits(10), Explain: setup,
			Backend:   ui.BackendInfo{Kind: "qdrant", Label: "bench", Collection: "bench", Model: "fake-embed", Points: 10},
			Defaults:  retrieval.Query{TopK: 10},
			Clipboard: func(string) error { return nil }, OpenURL: func(string) error { return nil }, Getenv: func(string) string { return "" },
		})
		for _, r := range "nodes" {
			d.send(key(string(r)))
		}
		d.send(tea.KeyPressMsg{Code: tea.KeyEnter})
		d.until(b, "Page 9", 5*time.Second)
		d.send(key("j"))
		d.send(key("j"))
		d.send(key("E"))
		d.until(b, "✎ what if", 5*time.Second)
		d.send(key("x"))
		t0 := time.Now()
		d.send(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
		d.until(b, "✎ would be #1", 5*time.Second)
		total += time.Since(t0)
		d.close()
	}
	per := total / time.Duration(b.N)
	b.ReportMetric(float64(per.Microseconds())/1000, "ms/save")
	b.ReportMetric(float64(per)/float64(embedLatency), "ratio")
}
