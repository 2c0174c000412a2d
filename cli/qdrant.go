package cli

import (
	"context"
	"fmt"
	"slices"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/cohere"
	"ragscope/retrieval/qdrant"
)

// openQdrant connects the Qdrant store and the Cohere embedder. Nothing is
// sent over the network here; the first Stats or query does that (and a
// query first checks that the collection's vector size fits the model).
func (a *App) openQdrant(ctx context.Context, selectionOnly bool) (*Backend, error) {
	// grpc-go logs transport errors to stderr by default, which would
	// scribble over the TUI; the debug log gets them when asked for.
	qdrant.SilenceGRPCLogs(a.debugWriter())
	ep, notes, err := qdrant.ParseURL(a.Cfg.QdrantURL)
	if err != nil {
		return nil, fmt.Errorf("%w: QDRANT_URL: %w", retrieval.ErrConfig, err)
	}
	be := &Backend{
		Kind:       config.BackendQdrant,
		Label:      "qdrant " + ep.String(),
		Collection: a.Cfg.Collection,
		Points:     -1,
		Notes:      notes,
	}
	if selectionOnly {
		be.Pipeline = &retrieval.Pipeline{URLs: a.urlBuilder(nil), Backend: string(be.Kind), Collection: be.Collection}
		return be, nil
	}
	mapping, err := qdrant.ParseMapping(a.Cfg.Mapping)
	if err != nil {
		return nil, err
	}
	store, err := qdrant.Open(ctx, qdrant.Options{
		URL:        a.Cfg.QdrantURL,
		APIKey:     a.Cfg.QdrantAPIKey.Reveal(),
		Collection: a.Cfg.Collection,
		Mapping:    mapping,
		Timeout:    a.Cfg.Timeout,
		Logger:     a.debugLogger(),
	})
	if err != nil {
		return nil, err
	}
	emb, err := cohere.New(cohere.Options{
		APIKey:  a.Cfg.CohereAPIKey.Reveal(),
		BaseURL: a.Cfg.CohereBaseURL,
		Model:   a.Cfg.EmbedModel,
		Timeout: a.Cfg.Timeout,
	})
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	be.Close = store.Close
	be.Walker = store
	for _, n := range store.Notes() {
		if !slices.Contains(be.Notes, n) {
			be.Notes = append(be.Notes, n)
		}
	}
	be.Pipeline = &retrieval.Pipeline{
		Embedder:   emb,
		Store:      store,
		URLs:       a.urlBuilder(nil),
		Backend:    string(be.Kind),
		Collection: a.Cfg.Collection,
	}
	be.check = func(ctx context.Context) error {
		if d := emb.Dim(); d > 0 {
			return store.CheckVectorSize(ctx, d)
		}
		return nil
	}
	return be, nil
}
