package qdrant

import (
	"context"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// TestPageTitle: a selected-text hit's page title comes from a point with
// that doc path, in both payload schemas (doc_path and
// metadata.source_file); an unknown page is not known.
func TestPageTitle(t *testing.T) {
	srv := startFake(t, qdranttest.Options{APIKey: testKey})
	ctx := context.Background()
	ch := qdranttest.Textbook()[0]
	if ch.DocPath == "" || ch.Title == "" {
		t.Fatalf("the fake textbook's first chunk has no doc path or title: %+v", ch)
	}
	for _, coll := range []string{qdranttest.CollectionA, qdranttest.CollectionB} {
		s := open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: coll})
		var _ retrieval.PageTitler = s
		if got, ok := s.PageTitle(ctx, ch.DocPath); !ok || got != ch.Title {
			t.Errorf("%s: PageTitle(%q) = %q, %v; want %q", coll, ch.DocPath, got, ok, ch.Title)
		}
		if got, ok := s.PageTitle(ctx, "docs/nowhere.md"); ok {
			t.Errorf("%s: PageTitle of a missing page = %q", coll, got)
		}
	}
	missing := open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: "missing"})
	if got, ok := missing.PageTitle(ctx, ch.DocPath); ok {
		t.Errorf("missing collection: %q", got)
	}
}
