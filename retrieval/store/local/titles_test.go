package local

import (
	"context"
	"testing"

	"ragscope/retrieval"
)

// TestPageTitleForSelectedText: a selected-text hit on the demo is titled
// with its page's title, for the doc path as stored and as a reader would
// type it (without the number prefix), not with the slug.
func TestPageTitleForSelectedText(t *testing.T) {
	ctx := context.Background()
	ix, corpus, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"docs/module-1-ros2/01-what-is-ros2.md": "What Is ROS 2?",
		"docs/module-1-ros2/what-is-ros2.md":    "What Is ROS 2?",
		" docs/module-1-ros2/what-is-ros2.md ":  "What Is ROS 2?",
	} {
		if got, ok := ix.PageTitle(ctx, path); !ok || got != want {
			t.Errorf("PageTitle(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
	if got, ok := ix.PageTitle(ctx, "docs/nowhere/page.md"); ok {
		t.Errorf("PageTitle of a missing page = %q", got)
	}
	p := &retrieval.Pipeline{Embedder: corpus.Embedder, Store: ix, URLs: retrieval.URLBuilder{DocsBase: "https://x.org/docs/"}}
	for path, want := range map[string]string{
		"docs/module-1-ros2/what-is-ros2.md": "What Is ROS 2?",
		"docs/nowhere/some-page.md":          "some-page",
	} {
		res, err := p.Retrieve(ctx, retrieval.Query{Mode: retrieval.ModeSelectedText, Question: "What is DDS?", SelectedText: "DDS is the middleware.", SourceDocPath: path, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Hits[0].Chunk.Title; got != want {
			t.Errorf("%s: selected-text hit titled %q, want %q", path, got, want)
		}
	}
}
