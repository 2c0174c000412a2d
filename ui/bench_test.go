package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
)

// benchModel is a 200x60 model showing 100 results (and the dropped ones).
func benchModel(b *testing.B) Model {
	f := &fakeRetriever{}
	opts, _ := testOptions(f)
	opts.Defaults = retrieval.Query{TopK: 100, Threshold: 0}
	m := sized(b, opts, 200, 60)
	var scored []retrieval.ScoredChunk
	for i := 0; i < 100; i++ {
		c := retrieval.Chunk{ID: fmt.Sprintf("c%03d", i), Text: fakeText(i, "Topic "+fmt.Sprint(i)), Title: fmt.Sprintf("Page %d", i), Section: "Section", Module: "m", Chapter: "c", DocPath: fmt.Sprintf("docs/m/p%d.md", i)}
		scored = append(scored, retrieval.ScoredChunk{Chunk: c, Score: 1 - float64(i)/200})
	}
	res := retrieval.Result{Question: "q", Mode: retrieval.ModeNormal}
	retrieval.PostProcess(scored, retrieval.Query{TopK: 100, NoDedup: true}, retrieval.URLBuilder{DocsBase: "https://x.example/docs/"}, &res)
	m.seq = 1
	m.running = true
	m = feed(b, m, resultMsg{Seq: 1, Query: retrieval.Query{Question: "q", TopK: 100}, Result: res})
	m = feed(b, m, tea.KeyPressMsg{Code: tea.KeyEsc})
	if len(m.results.Items) != 100 {
		b.Fatalf("items = %d", len(m.results.Items))
	}
	return m
}

func BenchmarkView100Results200x60(b *testing.B) {
	m := benchModel(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}

func BenchmarkUpdateKeyPress(b *testing.B) {
	m := benchModel(b)
	down, up := tea.KeyPressMsg{Code: tea.KeyDown}, tea.KeyPressMsg{Code: tea.KeyUp}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := down
		if i%2 == 1 {
			k = up
		}
		next, _ := m.Update(k)
		m = next.(Model)
	}
}

// BenchmarkKeyAfter100KBPaste types one character into a text area that
// holds a 100 KB paste, and draws the screen.
func BenchmarkKeyAfter100KBPaste(b *testing.B) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(b, opts, 120, 40)
	m = feed(b, m, ctrl('t'))
	para := strings.Repeat("ROS 2 nodes exchange messages over DDS topics; QoS decides reliability. ", 14) + "\n\n"
	big := strings.Repeat(para, 100*1024/len(para)+1)[:100*1024]
	next, _ := m.Update(tea.PasteMsg{Content: big})
	m = next.(Model)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next, _ := m.Update(keyRunes("a"))
		m = next.(Model)
		_ = m.View()
	}
}
