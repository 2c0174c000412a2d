package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/store/qdrant"
)

// openQdrant connects the Qdrant store and the query embedder. Nothing is
// sent over the network here; the first Stats or query does that (and a
// query first checks that the collection's vector size fits the model).
// StoreOnly: an embedder that cannot be built (no key) is left out with a
// note instead of failing.
func (as *Assembler) openQdrant(ctx context.Context, s Setup, mode Mode) (*Backend, error) {
	cfg := s.Config()
	// grpc-go logs transport errors to stderr by default, which would
	// scribble over the TUI; the debug log gets them when asked for.
	qdrant.SilenceGRPCLogs(as.logWriter())
	be, err := qdrantBackend(cfg, s)
	if err != nil {
		return nil, err
	}
	if mode == SelectionOnly {
		be.Pipeline = &retrieval.Pipeline{URLs: urlBuilder(cfg, nil), Backend: string(be.Kind), Collection: be.Collection}
		return be, nil
	}
	store, err := as.openQdrantStore(ctx, cfg, s)
	if err != nil {
		return nil, err
	}
	emb, err := as.openEmbedder(ctx, cfg, be)
	if err != nil && mode == StoreOnly && errors.Is(err, retrieval.ErrConfig) {
		be.Notes = append(be.Notes, "questions need a query embedder, which is not set up ("+Message(err)+"); stats and links do without")
		be.Close, be.Walker = store.Close, store
		be.Pipeline = &retrieval.Pipeline{Store: store, URLs: urlBuilder(cfg, nil), Backend: string(be.Kind), Collection: s.Collection}
		return be, nil
	}
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	as.searchQdrant(be, cfg, s, store, emb)
	return be, nil
}

// qdrantBackend is the Backend of the setup's Qdrant collection before
// anything is opened: its label and the notes of its URL (a mapped port).
// A URL that cannot be read is an error matching retrieval.ErrConfig.
func qdrantBackend(cfg config.Config, s Setup) (*Backend, error) {
	ep, notes, err := qdrant.ParseURL(cfg.QdrantURL)
	if err != nil {
		if !errors.Is(err, retrieval.ErrConfig) {
			err = fmt.Errorf("%w: QDRANT_URL: %w", retrieval.ErrConfig, err)
		}
		return nil, err
	}
	return &Backend{
		Kind:       config.BackendQdrant,
		Label:      "qdrant " + ep.String(),
		Collection: s.Collection,
		Points:     -1,
		Notes:      notes,
	}, nil
}

// openQdrantStore opens the store on the setup's collection with its
// payload mapping and its hybrid search settings.
func (as *Assembler) openQdrantStore(ctx context.Context, cfg config.Config, s Setup) (*qdrant.Store, error) {
	mapping, err := qdrant.ParseMapping(cfg.Mapping)
	if err != nil {
		return nil, err
	}
	t := as.providers()
	provider := t.ResolvedEmbedder(cfg)
	return qdrant.Open(ctx, qdrant.Options{
		URL:        cfg.QdrantURL,
		APIKey:     cfg.QdrantAPIKey.Reveal(),
		Collection: s.Collection,
		Mapping:    mapping,
		Timeout:    cfg.Timeout,
		Logger:     as.logger(),

		VectorName:    cfg.DenseVector,
		SparseVector:  cfg.SparseVector,
		SparseModel:   cfg.SparseModel,
		Fusion:        cfg.Fusion,
		RRFK:          cfg.RRFK,
		PrefetchLimit: cfg.PrefetchLimit,
		ModelsOfSize:  func(size int) string { return t.modelsOfSize(provider, size) },
	})
}

// searchQdrant makes be search store with emb: the pipeline, the search
// plan and notes the store reports, the document embedder of what-ifs,
// and the vector-size check that runs before the first embedding call
// (Check's, and the pipeline's when the model can shorten its vectors).
func (as *Assembler) searchQdrant(be *Backend, cfg config.Config, s Setup, store *qdrant.Store, emb QueryEmbedder) {
	be.Close = store.Close
	be.Walker = store
	be.searchPlan = func() string {
		p, ok := store.KnownPlan()
		if !ok {
			return ""
		}
		return p.Describe(emb.Name())
	}
	for _, n := range store.Notes() {
		if !slices.Contains(be.Notes, n) {
			be.Notes = append(be.Notes, n)
		}
	}
	be.Pipeline = &retrieval.Pipeline{
		Embedder:   emb,
		Store:      store,
		URLs:       urlBuilder(cfg, nil),
		Backend:    string(be.Kind),
		Collection: s.Collection,
	}
	be.DocEmbedder = func(ctx context.Context) (retrieval.Embedder, error) {
		return as.docEmbedder(ctx, cfg, be.Provider, emb)
	}
	settle := func(ctx context.Context) error { return checkVectorSize(ctx, cfg, be.Provider, store, emb) }
	be.check = settle
	if se, ok := emb.(shortable); ok && s.EmbedDimensions == 0 && se.Shortable() > 0 {
		// Every path that embeds (query, eval batches, the TUI) takes the
		// collection's size before the first call, not only Check's.
		be.Pipeline.Embedder = &sizeFirst{QueryEmbedder: emb, settle: settle}
	}
}

// sizeFirst settles a shortable model's vector size against the
// collection's before its first embedding call. The pipeline calls
// SettleSize before it embeds; Embed settles too, for callers that embed
// directly (eval's batches). A failed settle is returned and retried on the
// next call (a timeout must not stick).
type sizeFirst struct {
	QueryEmbedder
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
	return s.QueryEmbedder.Embed(ctx, texts)
}

// shortable is an embedder that can be asked for fewer dimensions (OpenAI
// text-embedding-3, Gemini outputDimensionality).
type shortable interface {
	Shortable() int
	SetDimensions(n int) error
}

// openEmbedder builds the query embedder the provider table resolves
// and names it in be (header, notes).
func (as *Assembler) openEmbedder(ctx context.Context, cfg config.Config, be *Backend) (QueryEmbedder, error) {
	t := as.providers()
	be.Provider = t.ResolvedEmbedder(cfg)
	if why := t.EmbedderChoice(cfg); why != "" {
		be.Notes = append(be.Notes, why)
	}
	p, ok := t.Lookup(be.Provider)
	if !ok || p.NewEmbedder == nil {
		return nil, fmt.Errorf("%w: --embedder %s cannot embed questions for a Qdrant collection in this build: use %s", retrieval.ErrConfig, be.Provider, listOr(t.embedNames(), ", ", " or "))
	}
	return p.embedder(ctx, EmbedOptions{Config: cfg, Model: embedModel(cfg, p), Dimensions: cfg.EmbedDimensions, Timeout: cfg.Timeout, Log: as.Log})
}

// embedModel is the model cfg asks of provider p ("" for its default).
func embedModel(cfg config.Config, p Provider) string {
	model := cfg.EmbedModel
	if model == config.DefaultEmbedModel && p.DefaultEmbedModel != config.DefaultEmbedModel {
		// The configured default is Cohere's model, not asked for: another
		// provider takes its own default.
		model = ""
	}
	return model
}

// docEmbedder builds provider's document embedder (its document input
// type) with the query embedder's model and vector size, so an edited
// chunk is embedded as the collection's chunks were.
func (as *Assembler) docEmbedder(ctx context.Context, cfg config.Config, provider string, query QueryEmbedder) (retrieval.Embedder, error) {
	p, ok := as.providers().Lookup(provider)
	if !ok || p.NewEmbedder == nil {
		return nil, fmt.Errorf("%w: --embedder %s cannot embed documents", retrieval.ErrConfig, provider)
	}
	dims := cfg.EmbedDimensions
	if d := query.Dim(); dims == 0 && d > 0 {
		if _, short := query.(shortable); short {
			dims = d
		}
	}
	return p.embedder(ctx, EmbedOptions{Config: cfg, Model: embedModel(cfg, p), Dimensions: dims, Timeout: cfg.Timeout, Documents: true, Log: as.Log})
}

// checkVectorSize compares the collection's vector size with the model's.
// With --dimensions unset and a model that can shorten its vectors (OpenAI's
// text-embedding-3 models), it asks the model for the collection's size.
func checkVectorSize(ctx context.Context, cfg config.Config, provider string, store *qdrant.Store, emb QueryEmbedder) error {
	d := emb.Dim()
	if d <= 0 {
		return nil
	}
	err := store.CheckVectorSize(ctx, d)
	var vse *qdrant.VectorSizeError
	if !errors.As(err, &vse) {
		return err
	}
	if se, ok := emb.(shortable); ok && cfg.EmbedDimensions == 0 && vse.Have > 0 && vse.Have <= se.Shortable() {
		return se.SetDimensions(vse.Have)
	}
	return fmt.Errorf("%w: collection %q holds %d-dimensional vectors but %s (%s) makes %d. "+
		"Use the model the collection was built with (%s), ask for %d dimensions with --dimensions %d if the model can shorten its vectors (OpenAI text-embedding-3, Gemini), or point --collection at another collection",
		retrieval.ErrConfig, vse.Collection, vse.Have, emb.Name(), provider, d, vse.ModelAdvice(), vse.Have, vse.Have)
}
