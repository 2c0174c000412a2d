package retrieval

import (
	"context"
	"errors"
	"testing"
)

// zeroEmbedder answers without error but with no vector.
type zeroEmbedder struct{}

func (zeroEmbedder) Embed(context.Context, []string) ([][]float32, error) { return nil, nil }
func (zeroEmbedder) Name() string                                         { return "zero" }
func (zeroEmbedder) Dim() int                                             { return 0 }

func TestZeroEmbeddingsIsABackendFailure(t *testing.T) {
	p := &Pipeline{Embedder: zeroEmbedder{}, Store: &fakeStore{}}
	_, err := p.Retrieve(context.Background(), Query{Question: "balance", TopK: 3})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
}
