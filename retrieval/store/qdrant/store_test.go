package qdrant

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/store/qdrant/qdranttest"
	"ragscope/retrieval/store/storetest"
)

func TestContract(t *testing.T) {
	srv := startFake(t, qdranttest.Options{APIKey: testKey})
	n := 0
	storetest.Run(t, func(t *testing.T, chunks []retrieval.Chunk, vectors [][]float32) retrieval.Store {
		n++
		name := fmt.Sprintf("contract_%d", n)
		c := qdranttest.Collection{Name: name, Dim: storetest.Dim}
		for i, ch := range chunks {
			var id uint64
			fmt.Sscan(ch.ID, &id)
			c.Points = append(c.Points, qdranttest.Point{ID: id, Vector: vectors[i], Payload: qdranttest.PayloadA(ch)})
		}
		srv.AddCollection(c)
		return open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: name})
	})
}

// TestReadOnly runs everything the store can do and proves only read RPCs
// reached the server.
func TestReadOnly(t *testing.T) {
	srv := startFake(t, qdranttest.Options{APIKey: testKey})
	ctx := context.Background()
	for _, coll := range []string{qdranttest.CollectionA, qdranttest.CollectionB, "missing"} {
		s := open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: coll})
		_, _ = s.Stats(ctx)
		_ = s.CheckVectorSize(ctx, 1024)
		_, _ = s.Search(ctx, retrieval.SearchRequest{Vector: qdranttest.Embed("ROS 2 topics"), Limit: 10, Threshold: 0.1,
			Filters: retrieval.Filters{Modules: []string{"module-1-ros2"}, Tags: []string{"ros2"}}})
		_ = s.Walk(ctx, func([]retrieval.Chunk, int) error { return nil })
	}
	calls := srv.Calls()
	if len(calls) == 0 {
		t.Fatal("no RPC recorded")
	}
	seen := map[string]bool{}
	for _, c := range calls {
		seen[c] = true
		if !slices.Contains(qdranttest.ReadOnlyMethods, c) {
			t.Errorf("non-read-only RPC sent: %s", c)
		}
	}
	for _, m := range []string{qc.Points_Query_FullMethodName, qc.Points_Scroll_FullMethodName, qc.Collections_Get_FullMethodName, qc.Collections_List_FullMethodName, qc.Points_Count_FullMethodName} {
		if !seen[m] {
			t.Errorf("expected %s to be exercised", m)
		}
	}
}

func TestSearchSchemaBNamedVectorAndNestedFilters(t *testing.T) {
	srv := startFake(t, qdranttest.Options{})
	ctx := context.Background()
	a := open(t, Options{URL: srv.URL(), Collection: qdranttest.CollectionA})
	b := open(t, Options{URL: srv.URL(), Collection: qdranttest.CollectionB})
	req := retrieval.SearchRequest{Vector: qdranttest.Embed("How do publishers send messages on a topic?"), Limit: 5,
		Filters: retrieval.Filters{Modules: []string{"module-1-ros2", "module-2-simulation"}, Tags: []string{"lesson"}}}
	ha, err := a.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := b.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(ha) != 5 || len(hb) != 5 {
		t.Fatalf("hits %d / %d", len(ha), len(hb))
	}
	for i := range ha {
		if ha[i].Chunk.Text != hb[i].Chunk.Text || ha[i].Chunk.Chapter != "Nodes, topics and services" && i == 0 {
			t.Errorf("hit %d: A %q (%s) vs B %q", i, ha[i].Chunk.Text, ha[i].Chunk.Chapter, hb[i].Chunk.Text)
		}
		if hb[i].Chunk.Module != "module-1-ros2" && hb[i].Chunk.Module != "module-2-simulation" {
			t.Errorf("filter ignored: %s", hb[i].Chunk.Module)
		}
	}
	if !strings.Contains(ha[0].Chunk.Text, "publisher") {
		t.Errorf("top hit %q is not about publishers", ha[0].Chunk.Text)
	}
	st, err := b.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mapping[FieldModule] != "metadata.module_name" || st.VectorSize != 1024 || st.Distance != "cosine" ||
		!slices.Equal(st.IndexedFields, []string{"metadata.module_name (keyword)"}) || st.Points != 160 {
		t.Errorf("stats B = %+v", st)
	}
}

func TestStatsReadyWithFacetsAndNotes(t *testing.T) {
	srv := startFake(t, qdranttest.Options{})
	s := open(t, Options{URL: "http://localhost:" + fmt.Sprint(srv.Port()), Collection: qdranttest.CollectionA})
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != retrieval.StatusReady || st.Points != 160 || st.VectorSize != 1024 || st.Backend != "qdrant" {
		t.Fatalf("stats = %+v", st)
	}
	if len(st.Facets["module"]) != 4 || len(st.Facets["chapter"]) != 16 || !slices.Contains(st.Facets["tag"], "key-concept") {
		t.Errorf("facets = %v", st.Facets)
	}
	if st.Mapping[FieldText] != "text" || !slices.Contains(st.PayloadFields, "section_title") {
		t.Errorf("mapping %v fields %v", st.Mapping, st.PayloadFields)
	}
	if !strings.Contains(strings.Join(st.Notes, "\n"), "no payload key found for: page_slug, heading_id") {
		t.Errorf("notes = %v", st.Notes)
	}
}

func TestStatsEmptyAndNotFound(t *testing.T) {
	srv := startFake(t, qdranttest.Options{})
	srv.AddCollection(qdranttest.Collection{Name: "empty", Dim: 1024})
	ctx := context.Background()
	st, err := open(t, Options{URL: srv.URL(), Collection: "empty"}).Stats(ctx)
	if err != nil || st.Status != retrieval.StatusEmpty {
		t.Fatalf("empty: %+v %v", st, err)
	}
	missing := open(t, Options{URL: srv.URL(), Collection: "nope"})
	st, err = missing.Stats(ctx)
	if err != nil || st.Status != retrieval.StatusNotFound {
		t.Fatalf("not found: %+v %v", st, err)
	}
	if !slices.Equal(st.Collections, []string{"empty", qdranttest.CollectionA, qdranttest.CollectionB}) ||
		!strings.Contains(strings.Join(st.Notes, " "), "run your ingestion first") {
		t.Errorf("not found stats = %+v", st)
	}
	_, err = missing.Search(ctx, retrieval.SearchRequest{Vector: make([]float32, 1024), Limit: 3})
	if !errors.Is(err, retrieval.ErrNotFound) || !strings.Contains(err.Error(), "run your ingestion first") ||
		!strings.Contains(err.Error(), qdranttest.CollectionA) {
		t.Errorf("search on a missing collection: %v", err)
	}
}

func TestCheckVectorSize(t *testing.T) {
	srv := startFake(t, qdranttest.Options{})
	s := open(t, Options{URL: srv.URL(), Collection: qdranttest.CollectionA})
	ctx := context.Background()
	if err := s.CheckVectorSize(ctx, 1024); err != nil {
		t.Fatal(err)
	}
	err := s.CheckVectorSize(ctx, 384)
	var vse *VectorSizeError
	if !errors.As(err, &vse) || !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "1024-dimensional vectors but the embedding model makes 384") {
		t.Fatalf("err = %v", err)
	}
	srv.ResetCalls()
	if _, err := s.Search(ctx, retrieval.SearchRequest{Vector: make([]float32, 384), Limit: 3}); !errors.As(err, &vse) {
		t.Fatalf("search with a wrong-size vector: %v", err)
	}
	if len(srv.Calls()) != 0 {
		t.Errorf("a wrong-size vector reached the server: %v", srv.Calls())
	}
}

func errorOf(t *testing.T, o Options) *Error {
	t.Helper()
	s := open(t, o)
	_, err := s.Search(context.Background(), retrieval.SearchRequest{Vector: make([]float32, 1024), Limit: 3})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %#v, want *Error", err)
	}
	t.Logf("%s: %s (cause: %v)", e.Kind, e.Msg, e.Err)
	for _, txt := range []string{err.Error(), fmt.Sprintf("%+v", err)} {
		if strings.Contains(txt, testKey) {
			t.Fatalf("error leaks the API key: %s", txt)
		}
	}
	return e
}

func TestErrorClasses(t *testing.T) {
	plain := startFake(t, qdranttest.Options{APIKey: testKey})
	secure := startFake(t, qdranttest.Options{APIKey: testKey, TLS: true})
	rest, stop, err := qdranttest.StartREST()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closedAddr := ln.Addr().String()
	ln.Close()

	for _, tc := range []struct {
		name  string
		opts  Options
		kind  string
		class error
		msg   string
	}{
		{"unreachable", Options{URL: "http://" + closedAddr}, KindUnreachable, retrieval.ErrUnavailable, "Cannot reach Qdrant at http://" + closedAddr},
		{"rest port", Options{URL: "http://" + rest}, KindWrongPort, retrieval.ErrUnavailable, "answered like Qdrant's REST API"},
		{"tls to plaintext", Options{URL: "https://" + strings.TrimPrefix(plain.URL(), "http://"), TLSConfig: secure.ClientTLS()}, KindTLS, retrieval.ErrUnavailable, "does not speak TLS"},
		{"plaintext to tls", Options{URL: secure.URL()[len("https://"):]}, KindTLS, retrieval.ErrUnavailable, "requires TLS"},
		{"untrusted cert", Options{URL: secure.URL()}, KindTLS, retrieval.ErrUnavailable, "TLS handshake with"},
		{"bad key", Options{URL: plain.URL(), APIKey: "wrong-" + testKey}, KindAuth, retrieval.ErrAuth, "Qdrant rejected the API key (Unauthenticated). Check QDRANT_API_KEY."},
		{"no key", Options{URL: plain.URL()}, KindAuth, retrieval.ErrAuth, "requires an API key"},
		{"missing collection", Options{URL: plain.URL(), APIKey: testKey, Collection: "nope"}, KindNotFound, retrieval.ErrNotFound, `Collection "nope" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.Collection == "" {
				tc.opts.Collection = qdranttest.CollectionA
			}
			e := errorOf(t, tc.opts)
			if e.Kind != tc.kind || !errors.Is(e, tc.class) || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got kind %s class-ok %v msg %q; want %s %q (cause %v)", e.Kind, errors.Is(e, tc.class), e.Msg, tc.kind, tc.msg, e.Err)
			}
			for _, other := range []error{retrieval.ErrUnavailable, retrieval.ErrAuth, retrieval.ErrNotFound, retrieval.ErrConfig} {
				if other != tc.class && errors.Is(e, other) {
					t.Errorf("also matches %v", other)
				}
			}
		})
	}
	t.Run("tls ok", func(t *testing.T) {
		s := open(t, Options{URL: secure.URL(), APIKey: testKey, Collection: qdranttest.CollectionA, TLSConfig: secure.ClientTLS()})
		if _, err := s.Search(context.Background(), retrieval.SearchRequest{Vector: qdranttest.Embed("gazebo"), Limit: 2}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestRESTPortGivenAsURLIsMapped(t *testing.T) {
	srv := startFake(t, qdranttest.Options{})
	// The user pastes the REST URL; ParseURL maps 6333 to 6334. Simulate by
	// checking the mapped endpoint and the note in Stats.
	s := open(t, Options{URL: "http://localhost:6333", Collection: "x"})
	if s.Endpoint().Port != GRPCPort || !strings.Contains(strings.Join(s.Notes(), ";"), "REST port 6333 mapped to gRPC port 6334") {
		t.Fatalf("endpoint %v notes %v", s.Endpoint(), s.Notes())
	}
	_ = srv
}

func TestTimeoutAndCancellation(t *testing.T) {
	srv := startFake(t, qdranttest.Options{Latency: 3 * time.Second})
	s := open(t, Options{URL: srv.URL(), Collection: qdranttest.CollectionA, Timeout: 100 * time.Millisecond})
	start := time.Now()
	_, err := s.Search(context.Background(), retrieval.SearchRequest{Vector: make([]float32, 1024), Limit: 3})
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "did not answer within 100ms") {
		t.Fatalf("timeout: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("timeout took %v", d)
	}

	s2 := open(t, Options{URL: srv.URL(), Collection: qdranttest.CollectionA})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	_, err = s2.Search(ctx, retrieval.SearchRequest{Vector: make([]float32, 1024), Limit: 3})
	if !errors.Is(err, context.Canceled) || errors.Is(err, retrieval.ErrUnavailable) {
		t.Fatalf("cancel: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("cancel took %v", d)
	}
}

func TestLoggerGetsKeyWarningNotStderr(t *testing.T) {
	var buf bytes.Buffer
	s := open(t, Options{URL: "http://qdrant.internal:6334", APIKey: testKey, Collection: "c",
		Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if !strings.Contains(buf.String(), "without TLS") || strings.Contains(buf.String(), testKey) {
		t.Errorf("log = %q", buf.String())
	}
	if !strings.Contains(strings.Join(s.Notes(), ";"), "without TLS") {
		t.Errorf("notes = %v", s.Notes())
	}
}

func TestOpenNeedsCollection(t *testing.T) {
	_, err := Open(context.Background(), Options{URL: "localhost"})
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "QDRANT_COLLECTION") {
		t.Fatalf("err = %v", err)
	}
}

// TestEndToEndWithCohere embeds through the fake Cohere server and
// searches the fake Qdrant, through the real pipeline.
func TestEndToEndWithCohere(t *testing.T) {
	co := coheretest.NewServer("co-key")
	defer co.Close()
	srv := startFake(t, qdranttest.Options{APIKey: testKey})
	emb, err := cohere.New(cohere.Options{APIKey: "co-key", BaseURL: co.URL, ModelDim: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{qdranttest.CollectionA, qdranttest.CollectionB} {
		s := open(t, Options{URL: srv.URL(), APIKey: testKey, Collection: coll})
		if err := s.CheckVectorSize(context.Background(), emb.Dim()); err != nil {
			t.Fatal(err)
		}
		p := &retrieval.Pipeline{Embedder: emb, Store: s}
		res, err := p.Retrieve(context.Background(), retrieval.Query{Question: "How does Nav2 use costmaps for path planning?", TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].Chunk.Chapter != "Navigation with Nav2" {
			t.Fatalf("%s: hits %+v", coll, res.Hits)
		}
	}
}
