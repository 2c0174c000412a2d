package qdrant

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

func hybridStore(t *testing.T, srvOpts qdranttest.Options, o Options) (*qdranttest.Server, *Store) {
	t.Helper()
	srv := startFake(t, srvOpts)
	srv.AddCollection(qdranttest.TextbookHybrid())
	o.URL, o.Collection = srv.URL(), qdranttest.CollectionHybrid
	return srv, open(t, o)
}

func hybridReq(q string, k int) retrieval.SearchRequest {
	return retrieval.SearchRequest{Vector: qdranttest.Embed(q), Text: q, Limit: k}
}

// A collection with a sparse vector beside the dense one is searched as
// hybrid by default: one QueryBatch (fused + each arm) per search, every
// hit placed in both arms, the arms' ranks those of the arms alone.
func TestHybridByDefaultWithArms(t *testing.T) {
	srv, s := hybridStore(t, qdranttest.Options{}, Options{})
	ctx := context.Background()
	plan, err := s.SearchPlan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Describe("embed-english-v3.0"); got != "hybrid: dense (embed-english-v3.0) + bm25 (qdrant/bm25), RRF k=2" {
		t.Fatalf("Describe = %q", got)
	}
	srv.ResetCalls()
	q := "How does Visual SLAM estimate the camera pose?"
	hits, err := s.Search(ctx, hybridReq(q, 5))
	if err != nil {
		t.Fatal(err)
	}
	if calls := srv.Calls(); len(calls) != 2 || calls[1] != qc.Points_QueryBatch_FullMethodName {
		t.Fatalf("calls = %v, want the health check once, then one QueryBatch", calls)
	}
	if len(hits) != 5 {
		t.Fatalf("%d hits", len(hits))
	}
	for i, h := range hits {
		if len(h.Arms) != 2 || h.Arms[0].Label != "dense" || h.Arms[0].Vector != "dense" || h.Arms[1].Label != "bm25" || h.Arms[1].Vector != "bm25" {
			t.Fatalf("hit %d arms = %+v", i+1, h.Arms)
		}
		if h.Arms[0].Rank == 0 && h.Arms[1].Rank == 0 {
			t.Errorf("hit %d is in neither arm: %+v", i+1, h.Arms)
		}
	}
	// RRF k=2 over the arms' ranks gives the fused score.
	for i, h := range hits {
		var want float64
		for _, a := range h.Arms {
			if a.Rank > 0 {
				want += 1 / float64(a.Rank-1+2)
			}
		}
		if d := h.Score - want; d > 1e-5 || d < -1e-5 {
			t.Errorf("hit %d: fused %v, from arms %+v want %v", i+1, h.Score, h.Arms, want)
		}
	}
	if !strings.Contains(hits[0].Chunk.Text, "Visual SLAM") {
		t.Errorf("top hit %q", hits[0].Chunk.Text)
	}
}

// The fusion settings: dbsf fuses by distribution, rrf_k changes k, dense
// and sparse search one arm with one Query.
func TestFusionSettings(t *testing.T) {
	ctx := context.Background()
	q := "Whisper transcribes voice commands"
	for _, tc := range []struct {
		o        Options
		describe string
		calls    string
		arms     int
	}{
		{Options{Fusion: "dbsf"}, "hybrid: dense + bm25 (qdrant/bm25), DBSF", qc.Points_QueryBatch_FullMethodName, 2},
		{Options{RRFK: 60}, "hybrid: dense + bm25 (qdrant/bm25), RRF k=60", qc.Points_QueryBatch_FullMethodName, 2},
		{Options{Fusion: "dense"}, "", qc.Points_Query_FullMethodName, 0},
		{Options{Fusion: "sparse"}, "sparse: bm25 (qdrant/bm25)", qc.Points_Query_FullMethodName, 0},
	} {
		srv, s := hybridStore(t, qdranttest.Options{}, tc.o)
		plan, err := s.SearchPlan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.Describe(""); got != tc.describe {
			t.Errorf("%+v: Describe = %q, want %q", tc.o, got, tc.describe)
		}
		srv.ResetCalls()
		hits, err := s.Search(ctx, hybridReq(q, 3))
		if err != nil {
			t.Fatal(err)
		}
		calls := srv.Calls()
		if calls[len(calls)-1] != tc.calls || len(hits) != 3 || len(hits[0].Arms) != tc.arms {
			t.Errorf("%+v: calls %v, %d hits, arms %+v", tc.o, calls, len(hits), hits[0].Arms)
		}
		if !strings.Contains(hits[0].Chunk.Text, "Whisper") {
			t.Errorf("%+v: top hit %q", tc.o, hits[0].Chunk.Text)
		}
		if tc.o.RRFK == 60 {
			var want float64
			for _, a := range hits[0].Arms {
				if a.Rank > 0 {
					want += 1 / float64(a.Rank-1+60)
				}
			}
			if d := hits[0].Score - want; d > 1e-6 || d < -1e-6 {
				t.Errorf("k 60: fused %v, want %v from %+v", hits[0].Score, want, hits[0].Arms)
			}
		}
	}
}

// Below Qdrant 1.15.2 the question is encoded by ragscope's bm25 encoder;
// the hits are the same as with the server's inference.
func TestSparseEncodedClientSideOnOldServers(t *testing.T) {
	ctx := context.Background()
	q := "reality gap between simulated and real robots"
	_, s1 := hybridStore(t, qdranttest.Options{Version: "1.17.0"}, Options{})
	_, s2 := hybridStore(t, qdranttest.Options{Version: "1.14.1"}, Options{})
	a, err := s1.Search(ctx, hybridReq(q, 5))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s2.Search(ctx, hybridReq(q, 5))
	if err != nil {
		t.Fatalf("1.14.1: %v", err)
	}
	for i := range a {
		if a[i].Chunk.ID != b[i].Chunk.ID || a[i].Score != b[i].Score {
			t.Fatalf("hit %d: %s %v vs %s %v", i+1, a[i].Chunk.ID, a[i].Score, b[i].Chunk.ID, b[i].Score)
		}
	}
}

// A sparse vector ragscope cannot encode (SPLADE: no idf modifier, or a
// sparse_model naming another model) is a configuration error naming
// the model and the way out; never a silent dense-only search.
func TestSparseModelRagscopeCannotRun(t *testing.T) {
	ctx := context.Background()
	_, s := hybridStore(t, qdranttest.Options{}, Options{SparseModel: "prithivida/Splade_PP_en_v1"})
	_, err := s.Search(ctx, hybridReq("nodes", 3))
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "prithivida/Splade_PP_en_v1") || !strings.Contains(err.Error(), "--fusion dense") {
		t.Fatalf("err = %v", err)
	}
	srv := startFake(t, qdranttest.Options{})
	c := qdranttest.TextbookHybrid()
	c.Sparse = map[string]qc.Modifier{"bm25": qc.Modifier_None}
	srv.AddCollection(c)
	s = open(t, Options{URL: srv.URL(), Collection: c.Name})
	if _, err := s.Search(ctx, hybridReq("nodes", 3)); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "no idf modifier") {
		t.Fatalf("no idf: err = %v", err)
	}
	st, err := s.Stats(ctx)
	if err != nil || !strings.Contains(strings.Join(st.Notes, "\n"), "--fusion dense") {
		t.Fatalf("stats: %v, notes %q", err, st.Notes)
	}
	s = open(t, Options{URL: srv.URL(), Collection: c.Name, Fusion: "dense"})
	if hits, err := s.Search(ctx, hybridReq("nodes", 3)); err != nil || len(hits) != 3 {
		t.Fatalf("--fusion dense: %v, %d hits", err, len(hits))
	}
}

func TestStatsListVectors(t *testing.T) {
	_, s := hybridStore(t, qdranttest.Options{}, Options{})
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []retrieval.VectorInfo{
		{Name: "dense", Kind: "dense", Size: 1024, Distance: "cosine", Used: true},
		{Name: "bm25", Kind: "sparse", Modifier: "idf", Model: "qdrant/bm25", Used: true},
	}
	if len(st.Vectors) != 2 || st.Vectors[0] != want[0] || st.Vectors[1] != want[1] {
		t.Fatalf("vectors = %+v", st.Vectors)
	}
	if st.Search != "hybrid: dense + bm25 (qdrant/bm25), RRF k=2" {
		t.Fatalf("search = %q", st.Search)
	}
}

func TestFusionParse(t *testing.T) {
	if _, err := Open(context.Background(), Options{URL: "http://127.0.0.1:6334", Collection: "x", Fusion: "max"}); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "rrf, dbsf, dense or sparse") {
		t.Fatalf("err = %v", err)
	}
}

// graded is what eval grades a hit by: its chunk's doc path, module,
// chapter and URL, and the citation built from its page slug, section
// and heading id.
func graded(c retrieval.Chunk) [8]any {
	return [8]any{c.DocPath, c.Module, c.Chapter, c.URL, c.PageSlug, c.Section, c.HeadingID, strings.Join(c.Breadcrumb, "/")}
}

// The arms' own rankings (eval's per-arm figures) decode what grading
// reads as the full payload does. A point the fused query also returned
// is its fused chunk (decoded once, from the whole payload); the others
// come without the keys grading never reads (the text, the bulk of a
// payload, the title, tags, hash, type and chunk index).
func TestHybridArmHitsGradedFieldsOnly(t *testing.T) {
	_, s := hybridStore(t, qdranttest.Options{}, Options{})
	ctx := context.Background()
	req := hybridReq("camera pose estimation with lidar and wheel odometry", 5)
	var arms []retrieval.ArmList
	req.ArmHits = &arms
	hits, err := s.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	fused := map[string]bool{}
	for _, h := range hits {
		fused[h.Chunk.ID] = true
	}
	full := map[string]retrieval.Chunk{}
	for _, p := range qdranttest.TextbookHybrid().Points {
		c := s.mapping.Decode(pointID(&qc.PointId{PointIdOptions: &qc.PointId_Num{Num: p.ID}}), p.Payload)
		full[c.ID] = c
	}
	if len(arms) != 2 {
		t.Fatalf("%d arms", len(arms))
	}
	var shared, own int
	for _, a := range arms {
		if len(a.Hits) != 5 {
			t.Fatalf("arm %s: %d hits", a.Label, len(a.Hits))
		}
		for _, h := range a.Hits {
			want, ok := full[h.Chunk.ID]
			if !ok {
				t.Fatalf("arm %s: unknown id %s", a.Label, h.Chunk.ID)
			}
			if graded(h.Chunk) != graded(want) {
				t.Errorf("arm %s hit %s graded by %v, want %v", a.Label, h.Chunk.ID, graded(h.Chunk), graded(want))
			}
			if fused[h.Chunk.ID] {
				shared++
				if !reflect.DeepEqual(h.Chunk, want) {
					t.Errorf("arm %s hit %s, also fused:\n got %+v\nwant the fused chunk %+v", a.Label, h.Chunk.ID, h.Chunk, want)
				}
				continue
			}
			own++
			if h.Chunk.Text != "" || h.Chunk.Title != "" || h.Chunk.Tags != nil || h.Chunk.ContentHash != "" || h.Chunk.ChunkIndex != nil {
				t.Errorf("arm %s hit %s: %+v, want the keys grading never reads left out", a.Label, h.Chunk.ID, h.Chunk)
			}
		}
	}
	if shared == 0 || own == 0 {
		t.Fatalf("%d arm hits also fused, %d not: the case does not try both", shared, own)
	}
}

// forGrading leaves out the top-level keys only fields grading never
// reads name; a key a graded field also names, or the head of a graded
// dotted path, stays; a payload so cut decodes what grading reads as the
// whole payload does, nested schemas included.
func TestMappingForGrading(t *testing.T) {
	m := DefaultMapping()
	m.Text = []string{"content", "metadata.text", "section", "meta"}
	m.URL = []string{"meta.link", "url"}
	got := m.forGrading().GetExclude().GetFields()
	want := []string{"content", "title", "page_title", "chunk_index", "position", "chunk_sequence", "chunk_id", "total_chunks", "content_hash", "tags", "content_type"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exclude = %v, want %v", got, want)
	}
	var none Mapping
	for _, f := range gradedFields() {
		*none.slot(f) = []string{"k"}
	}
	if sel := none.forGrading(); !sel.GetEnable() {
		t.Errorf("nothing to leave out: %v, want the whole payload", sel)
	}
	cut := func(sel *qc.WithPayloadSelector, p map[string]*qc.Value) map[string]*qc.Value {
		out := maps.Clone(p)
		for _, k := range sel.GetExclude().GetFields() {
			delete(out, k)
		}
		return out
	}
	d := DefaultMapping()
	for _, ch := range qdranttest.Textbook()[:30] {
		for _, p := range []map[string]*qc.Value{qdranttest.PayloadA(ch), qdranttest.PayloadB(ch)} {
			whole, part := d.Decode("1", p), d.Decode("1", cut(d.forGrading(), p))
			if graded(whole) != graded(part) || whole.DocPath == "" || whole.Module == "" {
				t.Fatalf("graded %v, want %v", graded(part), graded(whole))
			}
		}
	}
}
