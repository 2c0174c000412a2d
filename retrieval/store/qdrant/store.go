// Package qdrant is ragscope's Store on a Qdrant collection, through the
// official Go client (github.com/qdrant/go-client) over gRPC.
//
// The store is read-only: it only sends Query, Scroll, Count, collection
// Get and List. Payloads are decoded with a Mapping (see MAPPING.md), so
// collections built by different ingestion scripts work unchanged.
package qdrant

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"ragscope/retrieval"
)

// Defaults and bounds.
const (
	// DefaultTimeout bounds every call to Qdrant.
	DefaultTimeout = 10 * time.Second
	// sampleSize is the number of points scrolled to detect the mapping
	// before a filtered search.
	sampleSize = 64
	// facetSample bounds the points Stats reads for facets and detection.
	facetSample = 1000
	// facetMax bounds the values kept per facet.
	facetMax = 200
	// walkPage is the Walk page size.
	walkPage = 256
	// apiKeyHeader is the gRPC metadata key Qdrant reads the key from.
	apiKeyHeader = "api-key"
)

// Options configure a Store.
type Options struct {
	// URL is QDRANT_URL (see ParseURL).
	URL string
	// APIKey is QDRANT_API_KEY; sent as gRPC metadata "api-key".
	APIKey string
	// Collection is QDRANT_COLLECTION (or COLLECTION_NAME).
	Collection string
	// Mapping overrides payload keys; empty fields use DefaultMapping.
	Mapping Mapping
	// VectorName selects the named dense vector; empty means the
	// collection's only (or unnamed, or first named) vector.
	VectorName string
	// SparseVector selects the sparse vector of a hybrid search; empty
	// means the collection's first. SparseModel names the model that made
	// it; empty means qdrant/bm25 for a vector with the idf modifier.
	SparseVector, SparseModel string
	// Fusion is FusionAuto, FusionRRF, FusionDBSF, FusionDense or
	// FusionSparse (see ParseFusion); RRFK the RRF constant (0: Qdrant's,
	// DefaultRRFK); PrefetchLimit each arm's limit (0: PrefetchFactor ×
	// the query's limit).
	Fusion        string
	RRFK          int
	PrefetchLimit int
	// Timeout bounds each call; default 10 s.
	Timeout time.Duration
	// TLSConfig replaces the default TLS settings (private CAs, tests).
	TLSConfig *tls.Config
	// Logger receives the store's and the go-client's remarks; nil discards
	// them, so nothing reaches the terminal.
	Logger *slog.Logger
	// ModelsOfSize names the configured embedder's models that make
	// vectors of a size, for a VectorSizeError's advice ("OpenAI's
	// text-embedding-3-small or text-embedding-ada-002"); "" (or nil)
	// when none is known.
	ModelsOfSize func(size int) string
}

// Store is a read-only retrieval.Store and retrieval.Walker on one Qdrant
// collection. It is safe for concurrent use.
type Store struct {
	client     *qc.Client
	ep         Endpoint
	notes      []string
	collection string
	apiKey     string
	hasKey     bool
	mapping    Mapping
	// forGrading is mapping.forGrading(), made once: the payload an
	// arm's own ranking is asked for.
	forGrading *qc.WithPayloadSelector
	wantVector string
	timeout    time.Duration

	wantSparse, sparseModel string
	fusion                  string
	rrfK, prefetchLimit     int
	log                     *slog.Logger
	modelsOfSize            func(size int) string

	mu       sync.Mutex
	info     *collectionShape // nil until prepared
	detected *Detection       // nil until sampled
	version  *string          // the server's version, nil until asked
}

// collectionShape is what the store needs to know before searching.
type collectionShape struct {
	vectorName string // "" for an unnamed vector
	vectorSize int
	distance   string
	named      []string // names of all named vectors
	quantized  bool     // the collection or the searched vector is quantized

	sparseNames []string          // names of the sparse vectors
	modifiers   map[string]string // sparse vector -> "idf" or "none"
	plan        Plan
	planErr     error // the plan cannot run (a sparse model ragscope cannot encode…)
}

var (
	_ retrieval.Store  = (*Store)(nil)
	_ retrieval.Walker = (*Store)(nil)
)

// Open prepares a client for the collection. It does not contact the
// server (gRPC connects lazily), so it only fails on configuration
// (errors matching retrieval.ErrConfig); the first call reports
// connection problems. ctx is accepted for symmetry with other backends.
//
// The go-client's version check is skipped (SkipCompatibilityCheck): it
// costs an extra RPC at every start, can wait up to a minute on a slow
// server, and only logs a warning through the process-wide slog default.
// The API key is added by ragscope's own interceptor instead of
// Config.APIKey, because the go-client warns about keys without TLS
// through slog.Default; ragscope logs that to Options.Logger instead.
// Keepalive pings are off: ragscope calls Qdrant only when the user asks,
// each call has a timeout, and servers that limit pings would otherwise
// close an idle TUI's connection.
func Open(_ context.Context, opts Options) (*Store, error) {
	name := strings.TrimSpace(opts.Collection)
	if name == "" {
		return nil, fmt.Errorf("%w: no Qdrant collection: set QDRANT_COLLECTION (or COLLECTION_NAME)", retrieval.ErrConfig)
	}
	ep, notes, err := ParseURL(opts.URL)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{
		ep:         ep,
		notes:      notes,
		collection: name,
		apiKey:     opts.APIKey,
		hasKey:     opts.APIKey != "",
		mapping:    opts.Mapping.WithDefaults(),
		wantVector: opts.VectorName,
		timeout:    opts.Timeout,
		log:        log,

		wantSparse:    opts.SparseVector,
		sparseModel:   opts.SparseModel,
		rrfK:          opts.RRFK,
		prefetchLimit: opts.PrefetchLimit,
		modelsOfSize:  opts.ModelsOfSize,
	}
	s.forGrading = s.mapping.forGrading()
	if s.fusion, err = ParseFusion(opts.Fusion); err != nil {
		return nil, fmt.Errorf("%w: fusion: %w", retrieval.ErrConfig, err)
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.hasKey && !ep.TLS {
		note := "QDRANT_API_KEY is sent without TLS (http://): use https:// for a remote server"
		if !isLoopback(ep.Host) {
			s.notes = append(s.notes, note)
		}
		log.Warn(note, "endpoint", ep.String())
	}
	for _, n := range notes {
		log.Info("qdrant url", "note", n)
	}
	cfg := &qc.Config{
		Host:                   ep.Host,
		Port:                   ep.Port,
		UseTLS:                 ep.TLS,
		TLSConfig:              opts.TLSConfig,
		SkipCompatibilityCheck: true,
		PoolSize:               1,
		KeepAliveTime:          -1,
		GrpcOptions:            []grpc.DialOption{grpc.WithChainUnaryInterceptor(s.authInterceptor)},
	}
	client, err := qc.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: qdrant client for %s: %s", retrieval.ErrConfig, ep, redact(err.Error(), s.apiKey))
	}
	s.client = client
	return s, nil
}

// authInterceptor adds the API key to every call's metadata.
func (s *Store) authInterceptor(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if s.apiKey != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, apiKeyHeader, s.apiKey)
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// Close releases the connection.
func (s *Store) Close() error { return s.client.Close() }

// Endpoint returns where the store connects.
func (s *Store) Endpoint() Endpoint { return s.ep }

// Notes are remarks about the configuration (e.g. a mapped REST port).
func (s *Store) Notes() []string { return append([]string(nil), s.notes...) }

// Collection returns the collection name.
func (s *Store) Collection() string { return s.collection }

// call runs fn with the store's timeout.
func (s *Store) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := fn(cctx); err != nil {
		return s.classify(cctx, op, err)
	}
	return nil
}

// fetch is call for an fn that returns a value.
func fetch[T any](ctx context.Context, s *Store, op string, fn func(ctx context.Context) (T, error)) (T, error) {
	var v T
	err := s.call(ctx, op, func(ctx context.Context) (err error) {
		v, err = fn(ctx)
		return err
	})
	return v, err
}

// collectionInfo fetches the collection's description.
func (s *Store) collectionInfo(ctx context.Context) (*qc.CollectionInfo, error) {
	return fetch(ctx, s, "collection info", func(ctx context.Context) (*qc.CollectionInfo, error) {
		return s.client.GetCollectionInfo(ctx, s.collection)
	})
}

// shape returns the collection's vector configuration, fetching it once.
func (s *Store) shape(ctx context.Context) (*collectionShape, error) {
	return cached(s, &s.info, func() (*collectionShape, error) {
		info, err := s.collectionInfo(ctx)
		if err != nil {
			return nil, s.withCollections(ctx, err)
		}
		return s.shapeOf(info)
	})
}

// cached returns *slot, read under s.mu; when it is nil, fetch's value,
// kept there. Two first callers may both fetch: the collection gives them
// the same answer.
func cached[T any](s *Store, slot **T, fetch func() (*T, error)) (*T, error) {
	s.mu.Lock()
	v := *slot
	s.mu.Unlock()
	if v != nil {
		return v, nil
	}
	v, err := fetch()
	if err != nil {
		return nil, err
	}
	keep(s, slot, v)
	return v, nil
}

// keep sets *slot to v under s.mu.
func keep[T any](s *Store, slot **T, v *T) {
	s.mu.Lock()
	*slot = v
	s.mu.Unlock()
}

// shapeOf reads the vectors' configuration and decides the search plan.
func (s *Store) shapeOf(info *qc.CollectionInfo) (*collectionShape, error) {
	sh, err := s.denseShape(info)
	if err != nil {
		return nil, err
	}
	s.planSparse(info, sh)
	return sh, nil
}

// denseShape reads vector size and distance, choosing the named vector.
func (s *Store) denseShape(info *qc.CollectionInfo) (*collectionShape, error) {
	vc := info.GetConfig().GetParams().GetVectorsConfig()
	if p := vc.GetParams(); p != nil {
		if s.wantVector != "" {
			return nil, &Error{Kind: KindBadRequest, Op: "collection info",
				Msg: fmt.Sprintf("Collection %q has one unnamed vector, not %q: remove the vector name setting.", s.collection, s.wantVector)}
		}
		return &collectionShape{vectorSize: int(p.GetSize()), distance: distanceName(p.GetDistance()),
			quantized: info.GetConfig().GetQuantizationConfig() != nil || p.GetQuantizationConfig() != nil}, nil
	}
	m := vc.GetParamsMap().GetMap()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	sh := &collectionShape{named: names}
	switch {
	case len(names) == 0:
		return sh, nil // no dense vectors configured (sparse only, or unknown)
	case s.wantVector != "":
		if m[s.wantVector] == nil {
			return nil, &Error{Kind: KindBadRequest, Op: "collection info",
				Msg: fmt.Sprintf("Collection %q has no vector named %q; it has: %s.", s.collection, s.wantVector, strings.Join(names, ", "))}
		}
		sh.vectorName = s.wantVector
	default:
		sh.vectorName = names[0]
	}
	p := m[sh.vectorName]
	sh.vectorSize, sh.distance = int(p.GetSize()), distanceName(p.GetDistance())
	sh.quantized = info.GetConfig().GetQuantizationConfig() != nil || p.GetQuantizationConfig() != nil
	return sh, nil
}

func distanceName(d qc.Distance) string {
	switch d {
	case qc.Distance_Cosine:
		return "cosine"
	case qc.Distance_Dot:
		return "dot"
	case qc.Distance_Euclid:
		return "euclid"
	case qc.Distance_Manhattan:
		return "manhattan"
	}
	return strings.ToLower(d.String())
}

// withCollections adds the existing collections to a not-found error.
func (s *Store) withCollections(ctx context.Context, err error) error {
	e, ok := err.(*Error)
	if !ok || e.Kind != KindNotFound {
		return err
	}
	names, lerr := s.listCollections(ctx)
	if lerr != nil {
		return err
	}
	e.Msg = fmt.Sprintf("Collection %q not found in Qdrant at %s: run your ingestion first, or set QDRANT_COLLECTION to one of: %s.",
		s.collection, s.ep, listOrNone(names))
	return e
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none: the server has no collections)"
	}
	return strings.Join(names, ", ")
}

func (s *Store) listCollections(ctx context.Context) ([]string, error) {
	names, err := fetch(ctx, s, "list collections", s.client.ListCollections)
	sort.Strings(names)
	return names, err
}

// CheckVectorSize fails with a *VectorSizeError (matching
// retrieval.ErrConfig) when the collection's vectors are not dim long.
// dim <= 0 (unknown) checks nothing.
func (s *Store) CheckVectorSize(ctx context.Context, dim int) error {
	if dim <= 0 {
		return nil
	}
	sh, err := s.shape(ctx)
	if err != nil {
		return err
	}
	if sh.planErr == nil && sh.plan.Fusion == FusionSparse {
		return nil // the dense vector is not searched
	}
	if sh.vectorSize != dim {
		return s.sizeError(sh.vectorSize, dim)
	}
	return nil
}

// sizeError is the VectorSizeError of a collection of have-dimensional
// vectors searched with want-dimensional ones, naming the embedder's
// models of the collection's size.
func (s *Store) sizeError(have, want int) *VectorSizeError {
	e := &VectorSizeError{Collection: s.collection, Have: have, Want: want}
	if s.modelsOfSize != nil {
		e.Models = s.modelsOfSize(have)
	}
	return e
}

// Search runs a dense vector query with the filters as a must of keyword
// matches, one per filter field.
//
// On a hybrid collection it sends one QueryBatch: the fused query with a
// prefetch per arm, and each arm alone, so every hit carries its rank and
// score in each arm (ScoredChunk.Arms).
func (s *Store) Search(ctx context.Context, req retrieval.SearchRequest) ([]retrieval.ScoredChunk, error) {
	qs, err := s.plannedQueries(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(qs) == 1 {
		points, err := fetch(ctx, s, "search", func(ctx context.Context) ([]*qc.ScoredPoint, error) { return s.client.Query(ctx, qs[0].q) })
		if err != nil {
			return nil, s.withCollections(ctx, err)
		}
		return s.decode(points), nil
	}
	out, err := s.SearchBatch(ctx, []retrieval.SearchRequest{req})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// SearchBatch runs reqs in one QueryBatch call (retrieval.BatchSearcher);
// each request keeps its own vector, limit, threshold and filters. Qdrant
// fails the whole batch when one request is invalid.
func (s *Store) SearchBatch(ctx context.Context, reqs []retrieval.SearchRequest) ([][]retrieval.ScoredChunk, error) {
	batch := &qc.QueryBatchPoints{CollectionName: s.collection}
	planned := make([][]armQuery, len(reqs))
	for i, req := range reqs {
		qs, err := s.plannedQueries(ctx, req)
		if err != nil {
			return nil, err
		}
		planned[i] = qs
		for _, q := range qs {
			batch.QueryPoints = append(batch.QueryPoints, q.q)
		}
	}
	results, err := fetch(ctx, s, "batch search", func(ctx context.Context) ([]*qc.BatchResult, error) { return s.client.QueryBatch(ctx, batch) })
	if err != nil {
		return nil, s.withCollections(ctx, err)
	}
	if len(results) != len(batch.QueryPoints) {
		return nil, fmt.Errorf("qdrant answered %d of %d batched searches", len(results), len(batch.QueryPoints))
	}
	out := make([][]retrieval.ScoredChunk, len(reqs))
	next := 0
	for i, qs := range planned {
		lists := make([][]*qc.ScoredPoint, len(qs))
		for j := range qs {
			lists[j] = results[next].GetResult()
			next++
		}
		out[i] = s.withArms(qs, lists, reqs[i].ArmHits)
	}
	return out, nil
}

func (s *Store) decode(points []*qc.ScoredPoint) []retrieval.ScoredChunk {
	out := make([]retrieval.ScoredChunk, len(points))
	for i, p := range points {
		out[i] = retrieval.ScoredChunk{Chunk: s.mapping.Decode(pointID(p.GetId()), p.GetPayload()), Score: float64(p.GetScore())}
	}
	return out
}

// queryPoints builds the dense query for req, checking its vector size.
func (s *Store) queryPoints(ctx context.Context, req retrieval.SearchRequest) (*qc.QueryPoints, error) {
	sh, err := s.shape(ctx)
	if err != nil {
		return nil, err
	}
	if sh.vectorSize > 0 && len(req.Vector) != sh.vectorSize {
		return nil, s.sizeError(sh.vectorSize, len(req.Vector))
	}
	limit := retrieval.TopKOrDefault(req.Limit)
	q := &qc.QueryPoints{
		CollectionName: s.collection,
		Query:          qc.NewQueryDense(req.Vector),
		Limit:          qc.PtrOf(uint64(limit)),
		WithPayload:    qc.NewWithPayload(!req.IDsOnly),
	}
	if req.Exact {
		q.Params = &qc.SearchParams{Exact: qc.PtrOf(true)}
	}
	if req.Rescore != nil && sh.quantized {
		if q.Params == nil {
			q.Params = &qc.SearchParams{}
		}
		q.Params.Quantization = &qc.QuantizationSearchParams{Rescore: qc.PtrOf(*req.Rescore)}
	}
	if sh.vectorName != "" {
		q.Using = qc.PtrOf(sh.vectorName)
	}
	if req.Threshold > 0 {
		q.ScoreThreshold = qc.PtrOf(float32(req.Threshold))
	}
	if !req.Filters.IsEmpty() {
		f, err := s.filter(ctx, req.Filters)
		if err != nil {
			return nil, err
		}
		q.Filter = f
	}
	return q, nil
}

// filter builds must[ match_any(key, values) ] for each non-empty field.
func (s *Store) filter(ctx context.Context, f retrieval.Filters) (*qc.Filter, error) {
	var det *Detection
	if byID := (retrieval.Filters{IDs: f.IDs}); !reflect.DeepEqual(f, byID) {
		// Payload keys are detected once; a search by point id needs none.
		var err error
		if det, err = s.detection(ctx); err != nil {
			return nil, err
		}
	}
	var must []*qc.Condition
	for _, c := range []struct {
		field  string
		values []string
	}{{FieldModule, f.Modules}, {FieldChapter, f.Chapters}, {FieldContentType, f.ContentTypes}, {FieldTags, f.Tags}} {
		if len(c.values) == 0 {
			continue
		}
		must = append(must, qc.NewMatchKeywords(s.filterKey(det, c.field), c.values...))
	}
	if len(f.DocPaths) > 0 {
		must = append(must, qc.NewMatchKeywords(s.filterKey(det, FieldDocPath), f.DocPaths...))
	}
	if len(f.IDs) > 0 {
		ids := make([]*qc.PointId, len(f.IDs))
		for i, id := range f.IDs {
			ids[i] = parsePointID(id)
		}
		must = append(must, qc.NewHasID(ids...))
	}
	return &qc.Filter{Must: must}, nil
}

// parsePointID is id as a Qdrant point id: a number when it is one, else
// a UUID (Qdrant refuses other strings).
func parsePointID(id string) *qc.PointId {
	if n, err := strconv.ParseUint(id, 10, 64); err == nil {
		return qc.NewIDNum(n)
	}
	return qc.NewID(id)
}

// Count counts the points f leaves, exactly (retrieval.Counter).
func (s *Store) Count(ctx context.Context, f retrieval.Filters) (int64, error) {
	req := &qc.CountPoints{CollectionName: s.collection, Exact: qc.PtrOf(true)}
	if !f.IsEmpty() {
		filter, err := s.filter(ctx, f)
		if err != nil {
			return 0, err
		}
		req.Filter = filter
	}
	n, err := fetch(ctx, s, "count", func(ctx context.Context) (uint64, error) { return s.client.Count(ctx, req) })
	if err != nil {
		return 0, s.withCollections(ctx, err)
	}
	return int64(n), nil
}

// PrepareFilters learns the collection's payload keys (one sample, cached)
// so that a filtered search sent later costs one round trip
// (retrieval.FilterPreparer).
func (s *Store) PrepareFilters(ctx context.Context) error {
	_, err := s.detection(ctx)
	return err
}

// Quantized reports whether the searched vector is quantized, so that
// rescoring can be switched (retrieval.Quantizer).
func (s *Store) Quantized(ctx context.Context) bool {
	sh, err := s.shape(ctx)
	return err == nil && sh.quantized
}

// Approximate reports that the store's searches go through Qdrant's
// approximate (HNSW) index unless SearchRequest.Exact asks otherwise
// (retrieval.Approximator).
func (s *Store) Approximate() bool { return true }

// filterKey is the payload path a filter on field uses: the detected one,
// else the mapping's first candidate.
func (s *Store) filterKey(det *Detection, field string) string {
	if det != nil && det.Fields[field] != "" {
		return det.Fields[field]
	}
	if c := s.mapping.Candidates(field); len(c) > 0 {
		return c[0]
	}
	return field
}
