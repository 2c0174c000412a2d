package retrieval

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// modalStore ranks its chunks in the order of its mode: "" and "up" by
// score, "down" reversed. A view shares its chunks.
type modalStore struct {
	fakeStore
	mode string
}

func (s *modalStore) WithSearchMode(mode string) (Store, error) {
	if mode != "up" && mode != "down" {
		return nil, fmt.Errorf("%w: unknown mode %q", ErrConfig, mode)
	}
	return &modalStore{fakeStore: fakeStore{hits: s.hits}, mode: mode}, nil
}

func (s *modalStore) Search(ctx context.Context, req SearchRequest) ([]ScoredChunk, error) {
	out, err := s.fakeStore.Search(ctx, req)
	if s.mode == "down" {
		for i := range out {
			out[i].Score = 1 - out[i].Score
		}
	}
	return out, err
}

func firstIDs(res Result) string {
	s := ""
	for _, h := range res.Hits {
		s += h.Chunk.ID
	}
	return s
}

// A query's search mode picks the store's view in that mode, in single
// and batch retrievals (a batch mixing modes searches each on its own
// view); a store that ranks one way only refuses a mode before anything
// is embedded, and an unknown mode is the store's error.
func TestSearchModeRoutesToTheStoresView(t *testing.T) {
	store := &modalStore{fakeStore: fakeStore{hits: []ScoredChunk{sc("a", 0.9, "alpha"), sc("b", 0.5, "beta"), sc("c", 0.2, "gamma")}}}
	p, _ := newPipeline(store)
	ctx := context.Background()
	q := Query{Question: "q", TopK: 3}
	for mode, want := range map[string]string{"": "abc", "up": "abc", "down": "cba"} {
		q.SearchMode = mode
		res, err := p.Retrieve(ctx, q)
		if err != nil || firstIDs(res) != want {
			t.Errorf("mode %q: %s, %v; want %s", mode, firstIDs(res), err, want)
		}
	}
	if store.mode != "" {
		t.Errorf("the pipeline changed the store's own mode to %q", store.mode)
	}
	qs := []Query{{Question: "q", TopK: 3, SearchMode: "down"}, {Question: "q", TopK: 3}, {Question: "q", TopK: 3, SearchMode: "down"}, {Question: "q", TopK: 3, SearchMode: "sideways"}}
	vecs := [][]float32{{1, 0}, {1, 0}, {1, 0}, {1, 0}}
	res, errs := p.RetrieveBatch(ctx, qs, vecs, make([]time.Duration, len(qs)))
	for i, want := range []string{"cba", "abc", "cba"} {
		if errs[i] != nil || firstIDs(res[i]) != want {
			t.Errorf("batch query %d (%q): %s, %v; want %s", i, qs[i].SearchMode, firstIDs(res[i]), errs[i], want)
		}
	}
	if !errors.Is(errs[3], ErrConfig) {
		t.Errorf("batch query with an unknown mode: %v", errs[3])
	}
	one, err := p.RetrieveBatch(ctx, qs[:1], vecs[:1], make([]time.Duration, 1))
	if err[0] != nil || firstIDs(one[0]) != "cba" {
		t.Errorf("batch of one in mode down: %s, %v", firstIDs(one[0]), err[0])
	}

	if _, err := p.Retrieve(ctx, Query{Question: "q", TopK: 3, SearchMode: "sideways"}); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown mode: %v", err)
	}
	plain, emb := newPipeline(&fakeStore{hits: store.hits})
	_, err0 := plain.Retrieve(ctx, Query{Question: "q", TopK: 3, SearchMode: "up"})
	if !errors.Is(err0, ErrConfig) || emb.calls.Load() != 0 {
		t.Errorf("a mode on a store with one way to rank: %v after %d embeddings", err0, emb.calls.Load())
	}
	// Selected text searches nothing: a mode is no error there.
	if _, err := plain.Retrieve(ctx, Query{Question: "q", Mode: ModeSelectedText, SelectedText: "x", TopK: 3, SearchMode: "up"}); err != nil {
		t.Errorf("selected text with a mode: %v", err)
	}
}
