package ui

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/ui/answer"
)

// blockingGen streams nothing until its context ends: the benchmarks feed
// the pieces themselves.
type blockingGen struct{}

func (blockingGen) Stream(ctx context.Context, _ retrieval.Prompt, _ func(retrieval.Delta)) error {
	<-ctx.Done()
	return ctx.Err()
}
func (blockingGen) Model() string    { return "bench" }
func (blockingGen) Provider() string { return "bench" }

// answerWords is a model's answer of about n words in paragraphs of about
// 80, a citation marker closing every sentence, in pieces of a token or
// two, as chat models stream.
func answerWords(n int) []string {
	var pieces []string
	words := 0
	for words < n {
		for s := 0; s < 5 && words < n; s++ {
			for w := 0; w < 15; w++ {
				pieces = append(pieces, " nodes", " exchange")
				words += 2
			}
			pieces = append(pieces, " [Source "+strconv.Itoa(s%3+1)+"].")
		}
		pieces = append(pieces, "\n\n")
	}
	return pieces
}

// streamingModel is a 120x40 model whose Answer pane streams an answer to
// a query with 5 results, with the pieces fed so far.
func streamingModel(b *testing.B, pieces []string) (Model, *answer.Stream) {
	opts := answerOpts(blockingGen{})
	m := sized(b, opts, 120, 40)
	m = ask(b, m, "How do nodes talk?")
	// asking leaves the keyboard in the results
	next, _ := m.Update(keyRunes("a"))
	m = next.(Model)
	if !m.answer.Streaming() {
		b.Fatal("not streaming")
	}
	s := &answer.Stream{}
	for _, p := range pieces {
		next, _ := m.Update(answer.DeltaMsg{Gen: m.answer.Seq, Delta: retrieval.Delta{Text: p}, Pieces: s})
		m = next.(Model)
	}
	return m, s
}

// BenchmarkAnswerChunkAt5000Words is the Update of one streamed piece
// with 5,000 words of answer already in the pane (budget: 1 ms).
func BenchmarkAnswerChunkAt5000Words(b *testing.B) {
	m, s := streamingModel(b, answerWords(5000))
	if n := len(strings.Fields(m.answer.Live.Builder.Text())); n < 5000 {
		b.Fatalf("%d words", n)
	}
	msg := answer.DeltaMsg{Gen: m.answer.Seq, Delta: retrieval.Delta{Text: " topics"}, Pieces: s}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next, _ := m.Update(msg)
		m = next.(Model)
	}
	b.StopTimer()
	m.answer.Cancel()
}

// BenchmarkAnswerFirstToken is the Update and View of an answer's first
// piece (budget: 20 ms from its arrival to the frame).
func BenchmarkAnswerFirstToken(b *testing.B) {
	m, s := streamingModel(b, nil)
	first := retrieval.Delta{Text: "A node is the unit of computation"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m.answer.Live.Builder = retrieval.NewAnswerBuilder(retrieval.NewPrompt(m.answer.Res))
		m.answer.Refresh()
		b.StartTimer()
		next, _ := m.Update(answer.DeltaMsg{Gen: m.answer.Seq, Delta: first, Pieces: s})
		m = next.(Model)
		if v := m.View(); !strings.Contains(v.Content, "A node is the unit") {
			b.Fatal("the first piece is not drawn")
		}
	}
	b.StopTimer()
	m.answer.Cancel()
}
