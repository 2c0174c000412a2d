package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/ui/pageview"
)

// BenchmarkOpenPage200Chunks is the page view's opening on a page of 200
// chunks of about 2,000 characters (every tenth over embed-english-v3.0's
// 512 tokens), at 200x60: the key press, the listing's reply (measured,
// sanitised, cut) and the first frame. The listing itself is the store's
// (retrieval/store/local and retrieval/store/qdrant). Budget: 50 ms (issue 33).
func BenchmarkOpenPage200Chunks(b *testing.B) {
	const n = 200
	para := strings.Repeat("A node is the unit of computation; topics carry its messages to subscribers. ", 26)
	chunks := make([]retrieval.Chunk, n)
	for i := range chunks {
		text := fmt.Sprintf("## Part %d\n\n%s", i, para)
		if i%10 == 0 {
			text += strings.Repeat("Overflowing words the embedder never reads. ", 60)
		}
		chunks[i] = retrieval.Chunk{ID: fmt.Sprintf("page-%03d", i), DocPath: "docs/module-1-ros2/00-nodes-and-topics.md",
			Title: "Nodes and Topics", Section: fmt.Sprintf("Part %d", i), ChunkIndex: retrieval.IntPtr(i), TotalChunks: retrieval.IntPtr(n), Text: text}
	}
	chunks[100].ID = "chunk-00"
	opts, _ := testOptions(&fakeRetriever{})
	opts.EmbedLimit = chunkaudit.Limit{Model: "embed-english-v3.0", Tokens: 512, Known: true}
	opts.PageChunks = func(context.Context, string) ([]retrieval.Chunk, error) { return chunks, nil }
	m := sized(b, opts, 200, 60)
	m = ask(b, m, "How do nodes talk?")
	if m.Focus() != string(focusResults) {
		b.Fatalf("focus = %q", m.Focus())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next, _ := m.Update(keyRunes("p"))
		opened := next.(Model)
		next, _ = opened.Update(pageview.Msg{Seq: opened.page.Seq, DocPath: chunks[0].DocPath, Chunks: chunks})
		opened = next.(Model)
		if !strings.Contains(opened.View().Content, "text of #100") {
			b.Fatal("the page did not open on the hit")
		}
		opened.page.Stop()
	}
}
