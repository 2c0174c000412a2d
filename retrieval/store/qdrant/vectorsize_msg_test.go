package qdrant

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// The mismatch message names the fixes of every provider, and no
// provider's models when the store was told none.
func TestVectorSizeErrorNamesEveryFix(t *testing.T) {
	msg := (&VectorSizeError{Collection: "book", Have: 768, Want: 1024}).Error()
	for _, want := range []string{"768-dimensional", "makes 1024", "(--model, --embedder)", "--dimensions 768", "QDRANT_COLLECTION"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "Cohere") || strings.Contains(msg, "embed-english") {
		t.Errorf("message %q names Cohere's models for an embedder it was not told of", msg)
	}
}

// The store's mismatch errors, from the check and from a search, name the
// models Options.ModelsOfSize gives for the collection's size.
func TestVectorSizeErrorNamesTheEmbeddersModels(t *testing.T) {
	srv := startFake(t, qdranttest.Options{})
	var asked []int
	s := open(t, Options{URL: srv.URL(), Collection: qdranttest.CollectionA, ModelsOfSize: func(size int) string {
		asked = append(asked, size)
		return "Fake's fake-embed-1024"
	}})
	want := "(--model, --embedder; 1024 dimensions: Fake's fake-embed-1024)"
	err := s.CheckVectorSize(context.Background(), 384)
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), want) {
		t.Errorf("check: %v", err)
	}
	_, err = s.Search(context.Background(), retrieval.SearchRequest{Vector: make([]float32, 384), Limit: 3})
	if !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("search: %v", err)
	}
	if len(asked) != 2 || asked[0] != 1024 {
		t.Errorf("ModelsOfSize asked for %v, want the collection's 1024 twice", asked)
	}
}
