// Package qdranttest is an in-process Qdrant gRPC server for tests, built
// on the go-client's generated server interfaces. It serves collections of
// points held in memory, honours filters (must/should/must_not with keyword
// matches on string and list fields, dotted paths), score thresholds,
// limits and cosine or dot scores, checks the api-key metadata, records
// every RPC method and can add latency or serve over TLS. Points marked
// Unreachable model approximate-search misses: only an exact search
// (params.exact) returns them.
//
// Only read RPCs are implemented; any other RPC answers Unimplemented (and
// is recorded, so a read-only test catches it).
package qdranttest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"sort"
	"strconv"
	"sync"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"ragscope/retrieval/provider/bm25"
)

// ReadOnlyMethods are the RPCs a read-only client may send.
var ReadOnlyMethods = []string{
	qc.Points_Query_FullMethodName,
	qc.Points_QueryBatch_FullMethodName,
	qc.Points_Scroll_FullMethodName,
	qc.Points_Count_FullMethodName,
	qc.Collections_Get_FullMethodName,
	qc.Collections_List_FullMethodName,
	qc.Collections_CollectionExists_FullMethodName,
}

// Point is one stored point.
type Point struct {
	// ID is a numeric id; UUID, when set, is used instead.
	ID      uint64
	UUID    string
	Vector  []float32
	Payload map[string]*qc.Value
	// Unreachable models an approximate-search miss: a search without
	// params.exact never returns the point (as if the HNSW graph had no
	// path to it), while an exact search, Scroll and Count see it.
	Unreachable bool
	// Sparse holds the point's sparse vectors by name (see
	// Collection.Sparse); SparseBM25 builds a "qdrant/bm25" one.
	Sparse map[string]bm25.Vector

	key string // idKeyOf, set when the collection is added
}

// Collection is a named set of points with one vector configuration.
type Collection struct {
	Name string
	// VectorName names the vector; "" means a single unnamed vector.
	VectorName string
	Dim        int
	// Distance defaults to cosine.
	Distance qc.Distance
	Points   []Point
	// Indexed lists payload indexes (key -> type), reported in collection info.
	Indexed map[string]qc.PayloadSchemaType
	// Quantized reports binary quantization in the collection info; an
	// approximate search with quantization.rescore false then scores
	// with the points' quantized vectors (rescoring, the default, scores
	// with the originals).
	Quantized bool
	// Sparse names the collection's sparse vectors and their modifier
	// (qc.Modifier_Idf weighs each query index by its inverse document
	// frequency, as Qdrant does for BM25).
	Sparse map[string]qc.Modifier

	// sparse holds each sparse vector's inverted index.
	sparse map[string]*sparseIndex
}

// Options configure a Server.
type Options struct {
	// APIKey, when set, is required in the "api-key" metadata of every call.
	APIKey string
	// TLS serves over TLS with a self-signed certificate for 127.0.0.1.
	TLS bool
	// Latency delays every call (until the client gives up).
	Latency time.Duration
	// StrictFilters rejects a query filtering on a payload key the
	// collection has no index for, like Qdrant's strict mode
	// (unindexed_filtering_retrieve: false).
	StrictFilters bool
	// RefuseExact rejects searches with params.exact, like a Qdrant whose
	// strict mode disables exact search (search_allow_exact: false).
	RefuseExact bool
	// RefuseCount rejects Count calls, like a Qdrant whose strict mode or
	// proxy does not allow them.
	RefuseCount bool
	// Version is the version HealthCheck reports, "1.17.0" when empty.
	// Below 1.15.2 the server refuses Document (inference) queries.
	Version string
}

// Server is a running fake Qdrant. Its methods are safe for concurrent use.
type Server struct {
	opts   Options
	lis    net.Listener
	grpc   *grpc.Server
	client *tls.Config

	mu          sync.Mutex
	collections map[string]*Collection
	calls       []string
	latency     time.Duration
	busy        time.Duration
	// sorted caches each collection's points in id order for Scroll.
	sorted map[string][]Point
	// scrollFields records each Scroll's payload selection.
	scrollFields [][]string
}

// Start listens on 127.0.0.1:0 and serves until Close.
func Start(opts Options) (*Server, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s := &Server{opts: opts, lis: lis, collections: map[string]*Collection{}, latency: opts.Latency}
	sopts := []grpc.ServerOption{grpc.ChainUnaryInterceptor(s.intercept)}
	if opts.TLS {
		srvCfg, cliCfg, err := selfSigned()
		if err != nil {
			lis.Close()
			return nil, err
		}
		s.client = cliCfg
		sopts = append(sopts, grpc.Creds(credentials.NewTLS(srvCfg)))
	}
	s.grpc = grpc.NewServer(sopts...)
	qc.RegisterPointsServer(s.grpc, pointsService{s: s})
	qc.RegisterCollectionsServer(s.grpc, collectionsService{s: s})
	qc.RegisterQdrantServer(s.grpc, qdrantService{s: s})
	go func() { _ = s.grpc.Serve(lis) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.grpc.Stop() }

// Port is the gRPC port.
func (s *Server) Port() int { return s.lis.Addr().(*net.TCPAddr).Port }

// URL is the server as a QDRANT_URL (http:// or https:// with the port).
func (s *Server) URL() string {
	scheme := "http"
	if s.opts.TLS {
		scheme = "https"
	}
	return scheme + "://127.0.0.1:" + strconv.Itoa(s.Port())
}

// ClientTLS returns a client TLS config that trusts the server's
// certificate (nil without TLS).
func (s *Server) ClientTLS() *tls.Config {
	if s.client == nil {
		return nil
	}
	return s.client.Clone()
}

// AddCollection stores (or replaces) a collection.
func (s *Server) AddCollection(c Collection) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp := c
	cp.Points = append([]Point(nil), c.Points...)
	for i := range cp.Points {
		cp.Points[i].key = idKeyOf(cp.Points[i])
	}
	cp.sparse = sparseIndexes(&cp)
	s.collections[c.Name] = &cp
	delete(s.sorted, c.Name)
}

// SetLatency changes the delay of every following call.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// Calls returns the full method names of every RPC received, in order.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// ResetCalls forgets the recorded RPCs.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

func (s *Server) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	s.mu.Lock()
	s.calls = append(s.calls, info.FullMethod)
	latency := s.latency
	s.mu.Unlock()
	if s.opts.APIKey != "" {
		md, _ := metadata.FromIncomingContext(ctx)
		keys := md.Get("api-key")
		if len(keys) == 0 {
			return nil, status.Error(codes.Unauthenticated, "Must provide an API key or an Authorization bearer token")
		}
		if keys[0] != s.opts.APIKey {
			return nil, status.Error(codes.Unauthenticated, "Invalid API key or JWT")
		}
	}
	if latency > 0 {
		t := time.NewTimer(latency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	start := time.Now()
	resp, err := handler(ctx, req)
	d := time.Since(start)
	s.mu.Lock()
	s.busy += d
	s.mu.Unlock()
	return resp, err
}

// ServerTime is the total time handlers spent computing answers (without
// the added latency), so benchmarks can subtract the server's share.
func (s *Server) ServerTime() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}

func (s *Server) collection(name string) (*Collection, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.collections[name]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "Not found: Collection `%s` doesn't exist!", name)
	}
	return c, nil
}

// The three gRPC services are separate types: their method sets overlap
// (Get, Delete, List…).
type (
	pointsService struct {
		qc.UnimplementedPointsServer
		s *Server
	}
	collectionsService struct {
		qc.UnimplementedCollectionsServer
		s *Server
	}
	qdrantService struct {
		qc.UnimplementedQdrantServer
		s *Server
	}
)

// HealthCheck answers with the server's version (Options.Version).
func (q qdrantService) HealthCheck(context.Context, *qc.HealthCheckRequest) (*qc.HealthCheckReply, error) {
	return &qc.HealthCheckReply{Title: "qdrant - vector search engine (fake)", Version: q.s.version()}, nil
}

// List returns the collection names.
func (cs collectionsService) List(context.Context, *qc.ListCollectionsRequest) (*qc.ListCollectionsResponse, error) {
	s := cs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.collections))
	for n := range s.collections {
		names = append(names, n)
	}
	sort.Strings(names)
	resp := &qc.ListCollectionsResponse{}
	for _, n := range names {
		resp.Collections = append(resp.Collections, &qc.CollectionDescription{Name: n})
	}
	return resp, nil
}

// CollectionExists reports whether a collection exists.
func (cs collectionsService) CollectionExists(_ context.Context, r *qc.CollectionExistsRequest) (*qc.CollectionExistsResponse, error) {
	s := cs.s
	_, err := s.collection(r.GetCollectionName())
	return &qc.CollectionExistsResponse{Result: &qc.CollectionExists{Exists: err == nil}}, nil
}

// Get returns collection info: status, point count, vector config and
// payload indexes.
func (cs collectionsService) Get(_ context.Context, r *qc.GetCollectionInfoRequest) (*qc.GetCollectionInfoResponse, error) {
	s := cs.s
	c, err := s.collection(r.GetCollectionName())
	if err != nil {
		return nil, err
	}
	params := &qc.VectorParams{Size: uint64(c.Dim), Distance: distance(c)}
	vc := qc.NewVectorsConfig(params)
	switch {
	case c.VectorName != "":
		vc = qc.NewVectorsConfigMap(map[string]*qc.VectorParams{c.VectorName: params})
	case c.Dim == 0 && len(c.Sparse) > 0:
		vc = qc.NewVectorsConfigMap(map[string]*qc.VectorParams{})
	}
	var sparse *qc.SparseVectorConfig
	if len(c.Sparse) > 0 {
		m := map[string]*qc.SparseVectorParams{}
		for name, mod := range c.Sparse {
			m[name] = &qc.SparseVectorParams{Modifier: qc.PtrOf(mod)}
		}
		sparse = qc.NewSparseVectorsConfig(m)
	}
	schema := map[string]*qc.PayloadSchemaInfo{}
	for k, t := range c.Indexed {
		schema[k] = &qc.PayloadSchemaInfo{DataType: t}
	}
	n := uint64(len(c.Points))
	return &qc.GetCollectionInfoResponse{Result: &qc.CollectionInfo{
		Status:        qc.CollectionStatus_Green,
		SegmentsCount: 1,
		PointsCount:   &n,
		Config: &qc.CollectionConfig{
			Params:             &qc.CollectionParams{ShardNumber: 1, VectorsConfig: vc, SparseVectorsConfig: sparse},
			QuantizationConfig: quantization(c),
		},
		PayloadSchema: schema,
	}}, nil
}

func quantization(c *Collection) *qc.QuantizationConfig {
	if !c.Quantized {
		return nil
	}
	return qc.NewQuantizationBinary(&qc.BinaryQuantization{})
}

// quantize is v reduced to the signs of its components (as binary
// quantization stores it): scores over it rank like a lossy quantization.
func quantize(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		switch {
		case x > 0:
			out[i] = 1
		case x < 0:
			out[i] = -1
		}
	}
	return out
}

func distance(c *Collection) qc.Distance {
	if c.Distance == qc.Distance_UnknownDistance {
		return qc.Distance_Cosine
	}
	return c.Distance
}

// sortedPoints returns c's points in id order, sorted once per collection
// (a scroll of a large collection reads it page by page).
func (s *Server) sortedPoints(name string, c *Collection) []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pts, ok := s.sorted[name]; ok {
		return pts
	}
	pts := sortedPoints(c)
	if s.sorted == nil {
		s.sorted = map[string][]Point{}
	}
	s.sorted[name] = pts
	return pts
}

func sortedPoints(c *Collection) []Point {
	keys := make([]string, len(c.Points))
	order := make([]int, len(c.Points))
	for i := range c.Points {
		keys[i], order[i] = idKeyOf(c.Points[i]), i
	}
	sort.Slice(order, func(i, j int) bool { return keys[order[i]] < keys[order[j]] })
	pts := make([]Point, len(order))
	for i, o := range order {
		pts[i] = c.Points[o]
	}
	return pts
}

// idKeyOf orders numeric ids before UUIDs, numerically.
func idKeyOf(p Point) string {
	if p.UUID != "" {
		return "u" + p.UUID
	}
	return fmt.Sprintf("n%020d", p.ID)
}

func idKey(id *qc.PointId) string {
	if u := id.GetUuid(); u != "" {
		return "u" + u
	}
	return fmt.Sprintf("n%020d", id.GetNum())
}

func pointID(p Point) *qc.PointId {
	if p.UUID != "" {
		return qc.NewIDUUID(p.UUID)
	}
	return qc.NewIDNum(p.ID)
}

// selfSigned makes a server TLS config for 127.0.0.1 and a client config
// trusting it.
func selfSigned() (*tls.Config, *tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "qdranttest"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("create certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("parse certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	srv := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}, MinVersion: tls.VersionTLS12}
	cli := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return srv, cli, nil
}
