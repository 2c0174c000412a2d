package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/cohere"
	"ragscope/retrieval/gemini"
	"ragscope/retrieval/openai"
	"ragscope/retrieval/qdrant"
)

// openQdrant connects the Qdrant store and the query embedder. Nothing is
// sent over the network here; the first Stats or query does that (and a
// query first checks that the collection's vector size fits the model).
// Without embeds (stats, links), an embedder that cannot be built (no key)
// is left out with a note instead of failing.
func (a *App) openQdrant(ctx context.Context, selectionOnly, embeds bool) (*Backend, error) {
	// grpc-go logs transport errors to stderr by default, which would
	// scribble over the TUI; the debug log gets them when asked for.
	qdrant.SilenceGRPCLogs(a.debugWriter())
	ep, notes, err := qdrant.ParseURL(a.Cfg.QdrantURL)
	if err != nil {
		if !errors.Is(err, retrieval.ErrConfig) {
			err = fmt.Errorf("%w: QDRANT_URL: %w", retrieval.ErrConfig, err)
		}
		return nil, err
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
	emb, err := a.openEmbedder(be)
	if err != nil && !embeds && errors.Is(err, retrieval.ErrConfig) {
		be.Notes = append(be.Notes, "questions need a query embedder, which is not set up ("+Message(err)+"); stats and links do without")
		be.Close, be.Walker = store.Close, store
		be.Pipeline = &retrieval.Pipeline{Store: store, URLs: a.urlBuilder(nil), Backend: string(be.Kind), Collection: a.Cfg.Collection}
		return be, nil
	}
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
		return a.checkVectorSize(ctx, store, emb)
	}
	if se, ok := emb.(shortable); ok && a.Cfg.EmbedDimensions == 0 && se.Shortable() > 0 {
		// Every path that embeds (query, eval batches, the TUI) takes the
		// collection's size before the first call, not only Check's.
		be.Pipeline.Embedder = &sizeFirst{queryEmbedder: emb, settle: func(ctx context.Context) error { return a.checkVectorSize(ctx, store, emb) }}
	}
	return be, nil
}

// sizeFirst settles a shortable model's vector size against the
// collection's before its first embedding call. The pipeline calls
// SettleSize before it embeds; Embed settles too, for callers that embed
// directly (eval's batches). A failed settle is returned and retried on the
// next call (a timeout must not stick).
type sizeFirst struct {
	queryEmbedder
	mu      sync.Mutex
	settled atomic.Bool
	settle  func(ctx context.Context) error
}

// SettleSize asks the collection for its vector size once it succeeds.
func (s *sizeFirst) SettleSize(ctx context.Context) error {
	if s.settled.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.settled.Load() {
		return nil
	}
	if err := s.settle(ctx); err != nil {
		return err
	}
	s.settled.Store(true)
	return nil
}

// Embed settles the size, then embeds.
func (s *sizeFirst) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := s.SettleSize(ctx); err != nil {
		return nil, err
	}
	return s.queryEmbedder.Embed(ctx, texts)
}

// shortable is an embedder that can be asked for fewer dimensions (OpenAI
// text-embedding-3, Gemini outputDimensionality).
type shortable interface {
	Shortable() int
	SetDimensions(n int) error
}

// queryEmbedder is what the Qdrant backend needs of a provider's embedder.
type queryEmbedder interface {
	retrieval.Embedder
	Dim() int
}

// openEmbedder builds the query embedder config.ResolvedEmbedder chose and
// names it in be (header, notes).
func (a *App) openEmbedder(be *Backend) (queryEmbedder, error) {
	cfg := a.Cfg
	be.Provider = cfg.ResolvedEmbedder()
	if why := cfg.EmbedderChoice(); why != "" {
		be.Notes = append(be.Notes, why)
	}
	model := cfg.EmbedModel
	if model == config.DefaultEmbedModel {
		model = "" // the Cohere default, not asked for: the provider's own default
	}
	switch be.Provider {
	case config.EmbedderOpenAI:
		return openai.New(openai.Options{
			APIKey:     cfg.OpenAIAPIKey.Reveal(),
			BaseURL:    cfg.OpenAIBaseURL,
			Model:      model,
			Dimensions: cfg.EmbedDimensions,
			Timeout:    cfg.Timeout,
		})
	case config.EmbedderGemini:
		return gemini.New(context.Background(), gemini.Options{
			APIKey:     cfg.GeminiAPIKey.Reveal(),
			BaseURL:    cfg.GeminiBaseURL,
			Model:      model,
			Dimensions: cfg.EmbedDimensions,
			Timeout:    cfg.Timeout,
		})
	case config.EmbedderCohere:
		if cfg.EmbedDimensions > 0 && cfg.EmbedDimensions != cohere.KnownDim(cfg.EmbedModel) {
			return nil, fmt.Errorf("%w: --dimensions %d: Cohere's %s cannot be asked for another vector size; use --embedder openai with text-embedding-3-small/-large, or drop --dimensions", retrieval.ErrConfig, cfg.EmbedDimensions, cfg.EmbedModel)
		}
		return cohere.New(cohere.Options{
			APIKey:  cfg.CohereAPIKey.Reveal(),
			BaseURL: cfg.CohereBaseURL,
			Model:   cfg.EmbedModel,
			Timeout: cfg.Timeout,
		})
	}
	return nil, fmt.Errorf("%w: --embedder %s cannot embed questions for a Qdrant collection in this build: use cohere or openai", retrieval.ErrConfig, be.Provider)
}

// checkVectorSize compares the collection's vector size with the model's.
// With --dimensions unset and a model that can shorten its vectors (OpenAI's
// text-embedding-3 models), it asks the model for the collection's size.
func (a *App) checkVectorSize(ctx context.Context, store *qdrant.Store, emb queryEmbedder) error {
	d := emb.Dim()
	if d <= 0 {
		return nil
	}
	err := store.CheckVectorSize(ctx, d)
	var vse *qdrant.VectorSizeError
	if !errors.As(err, &vse) {
		return err
	}
	if se, ok := emb.(shortable); ok && a.Cfg.EmbedDimensions == 0 && vse.Have > 0 && vse.Have <= se.Shortable() {
		return se.SetDimensions(vse.Have)
	}
	return fmt.Errorf("%w: collection %q holds %d-dimensional vectors but %s (%s) makes %d. "+
		"Use the model the collection was built with (--model), ask for %d dimensions with --dimensions %d if the model can shorten its vectors (OpenAI text-embedding-3, Gemini), or point --collection at another collection",
		retrieval.ErrConfig, vse.Collection, vse.Have, emb.Name(), a.Cfg.ResolvedEmbedder(), d, vse.Have, vse.Have)
}
