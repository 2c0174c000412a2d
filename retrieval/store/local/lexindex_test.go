package local

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"ragscope/retrieval"
)

// TestBM25IndexMatchesReranker checks the stored postings against the BM25
// reranker, which scores from the texts: over the whole demo, the same
// question gives every chunk the same score.
func TestBM25IndexMatchesReranker(t *testing.T) {
	ctx := context.Background()
	ix, _, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]string, ix.Len())
	for i := range ix.chunks {
		docs[i] = bm25Doc(&ix.chunks[i])
	}
	rr := NewBM25(ix.chunks)
	for _, q := range []string{"What is ROS 2?", "domain randomization friction", "Whisper speech recognition", "xacro macros for legs"} {
		want, err := rr.Rerank(ctx, q, docs, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, ix.Len())
		ix.bm25.scores(ix.bm25.query(q), got)
		for _, r := range want {
			if math.Abs(got[r.Index]-r.Score) > 1e-5 {
				t.Fatalf("%q chunk %d: index %.6f, reranker %.6f", q, r.Index, got[r.Index], r.Score)
			}
		}
		if want[0].Score <= 0 {
			t.Fatalf("%q: no chunk scores", q)
		}
	}
}

func TestBM25IndexEncodeDecode(t *testing.T) {
	ix, _, err := OpenDemo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := ix.bm25.encode()
	if len(b) != ix.bm25.encodedLen() {
		t.Fatalf("encoded %d bytes, encodedLen says %d", len(b), ix.bm25.encodedLen())
	}
	got, err := decodeBM25Index(b, ix.Len())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.keys, ix.bm25.keys) || !slices.Equal(got.start, ix.bm25.start) || !slices.Equal(got.doc, ix.bm25.doc) || !slices.Equal(got.tf, ix.bm25.tf) {
		t.Error("decoded postings differ")
	}
	if _, err := decodeBM25Index(b, ix.Len()+1); err == nil {
		t.Error("postings for another number of chunks accepted")
	}
	for _, cut := range []int{0, 10, 30, len(b) - 8} {
		if _, err := decodeBM25Index(b[:cut], ix.Len()); err == nil {
			t.Errorf("cut at %d bytes: accepted", cut)
		}
	}
	bad := slices.Clone(b)
	// start[1] (after the header and the keys) pointing past the postings.
	off := 24 + 8*len(ix.bm25.keys) + 4
	bad[off], bad[off+1], bad[off+2], bad[off+3] = 0xff, 0xff, 0xff, 0x7f
	if _, err := decodeBM25Index(bad, ix.Len()); err == nil {
		t.Error("bad offsets accepted")
	}
}

// FuzzDecodeBM25Index checks that no section makes a load or a search
// panic.
func FuzzDecodeBM25Index(f *testing.F) {
	chunks := []retrieval.Chunk{{ID: "a", Text: "ros nodes talk"}, {ID: "b", Text: "gazebo physics"}}
	ix, err := newBM25Index(context.Background(), chunks)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ix.encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeBM25Index(b, 2)
		if err != nil {
			return
		}
		out := make([]float64, 2)
		got.scores(got.query("ros nodes gazebo"), out)
	})
}

func TestParseSearchMode(t *testing.T) {
	for in, want := range map[string]SearchMode{"": ModeBM25, "Hybrid": ModeHybrid, " bm25 ": ModeBM25, "embedder": ModeEmbedder} {
		if got, err := ParseSearchMode(in); err != nil || got != want {
			t.Errorf("ParseSearchMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseSearchMode("vector"); !errors.Is(err, retrieval.ErrConfig) {
		t.Errorf("unknown mode: err = %v, want ErrConfig", err)
	}
}

// demoSearch embeds q and searches the demo in mode.
func demoSearch(t *testing.T, mode SearchMode, q string, req retrieval.SearchRequest) []retrieval.ScoredChunk {
	t.Helper()
	ctx := context.Background()
	ix, c, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ix, err = ix.WithMode(mode); err != nil {
		t.Fatal(err)
	}
	v, err := c.Embedder.Embed(ctx, []string{q})
	if err != nil {
		t.Fatal(err)
	}
	req.Vector, req.Text = v[0], q
	if req.Limit == 0 {
		req.Limit = 10
	}
	res, err := ix.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSearchModes checks what each mode scores by: BM25 alone (every hit
// shares a term with the question), the cosine alone, or their blend, whose
// parts are reported and add up.
func TestSearchModes(t *testing.T) {
	const q = "how do nodes talk to each other?"
	emb := demoSearch(t, ModeEmbedder, q, retrieval.SearchRequest{})
	lex := demoSearch(t, ModeBM25, q, retrieval.SearchRequest{})
	hyb := demoSearch(t, ModeHybrid, q, retrieval.SearchRequest{})
	if len(emb) != 10 || len(lex) != 10 || len(hyb) != 10 {
		t.Fatalf("hits: embedder %d, bm25 %d, hybrid %d; want 10 each", len(emb), len(lex), len(hyb))
	}
	for _, h := range append(slices.Clone(emb), lex...) {
		if h.Parts != nil {
			t.Errorf("%s: a single-sided mode reports score parts", h.Chunk.ID)
		}
	}
	cos := map[string]float64{}
	for _, h := range emb {
		cos[h.Chunk.ID] = h.Score
	}
	bm := map[string]float64{}
	for _, h := range lex {
		if h.Score <= 0 || h.Score > 1 {
			t.Errorf("bm25 %s: score %v, want in (0, 1]", h.Chunk.ID, h.Score)
		}
		bm[h.Chunk.ID] = h.Score
	}
	for k, h := range hyb {
		p := h.Parts
		if p == nil {
			t.Fatalf("hybrid hit %d has no score parts", k+1)
		}
		f := defaultFusion
		if want := (f.vec*p.Cosine + (1-f.vec)*p.BM25 + f.title*p.Title) / (1 + f.title); math.Abs(h.Score-want) > 1e-9 {
			t.Errorf("hybrid %s: score %v, parts give %v", h.Chunk.ID, h.Score, want)
		}
		if c, ok := cos[h.Chunk.ID]; ok && math.Abs(c-p.Cosine) > 1e-6 {
			t.Errorf("hybrid %s: cosine part %v, embedder mode scores %v", h.Chunk.ID, p.Cosine, c)
		}
		// BM25 mode scores BM25 with the same title match.
		if b, ok := bm[h.Chunk.ID]; ok && math.Abs(b-(p.BM25+f.title*p.Title)/(1+f.title)) > 1e-9 {
			t.Errorf("hybrid %s: bm25 part %v (title %v), bm25 mode scores %v", h.Chunk.ID, p.BM25, p.Title, b)
		}
		if p.BM25Rank == 0 && p.CosineRank == 0 {
			t.Errorf("hybrid %s: a candidate of neither side", h.Chunk.ID)
		}
	}
	if hyb[0].Parts.BM25Rank != 1 && hyb[0].Parts.CosineRank != 1 && hyb[0].Parts.BM25Rank+hyb[0].Parts.CosineRank > 10 {
		t.Errorf("hybrid's first hit ranks %d (BM25) and %d (cosine)", hyb[0].Parts.BM25Rank, hyb[0].Parts.CosineRank)
	}
}

// TestSearchModesFilterAndThreshold checks that BM25 and hybrid searches
// keep the filter and threshold semantics of the vector search.
func TestSearchModesFilterAndThreshold(t *testing.T) {
	f := retrieval.Filters{Modules: []string{"module-2-simulation"}}
	for _, m := range []SearchMode{ModeBM25, ModeHybrid} {
		res := demoSearch(t, m, "ROS 2 nodes and topics", retrieval.SearchRequest{Filters: f, Limit: 20})
		if len(res) == 0 {
			t.Fatalf("%s: no hits in module 2", m)
		}
		for _, h := range res {
			if h.Chunk.Module != "module-2-simulation" {
				t.Errorf("%s: %s is in module %q", m, h.Chunk.ID, h.Chunk.Module)
			}
		}
		all := demoSearch(t, m, "ROS 2 nodes and topics", retrieval.SearchRequest{Limit: 50})
		th := all[len(all)/2].Score
		cut := demoSearch(t, m, "ROS 2 nodes and topics", retrieval.SearchRequest{Limit: 50, Threshold: th})
		if len(cut) == 0 || len(cut) >= len(all) {
			t.Errorf("%s: threshold %v kept %d of %d", m, th, len(cut), len(all))
		}
		for _, h := range cut {
			if h.Score < th {
				t.Errorf("%s: %s scores %v below the threshold %v", m, h.Chunk.ID, h.Score, th)
			}
		}
	}
}

// TestNoEvidenceNoHits: a question none of whose words the corpus has
// (nonsense, another script) finds nothing in the BM25 and hybrid modes,
// so the grounded context is not sufficient, though the vectors alone
// always find a nearest chunk.
func TestNoEvidenceNoHits(t *testing.T) {
	for _, q := range []string{"xqzzv blorfing wubbadub", "机器人是什么？", "Что такое робот?"} {
		if res := demoSearch(t, ModeEmbedder, q, retrieval.SearchRequest{}); len(res) == 0 {
			t.Errorf("%q: embedder mode found nothing (the rule under test would be moot)", q)
		}
		for _, m := range []SearchMode{ModeHybrid, ModeBM25} {
			if res := demoSearch(t, m, q, retrieval.SearchRequest{}); len(res) != 0 {
				t.Errorf("%s %q: %d hits, first %s, want none", m, q, len(res), res[0].Chunk.ID)
			}
		}
	}
	ctx := context.Background()
	ix, c, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := &retrieval.Pipeline{Embedder: c.Embedder, Store: ix}
	res, err := p.Retrieve(ctx, retrieval.Query{Question: "机器人是什么？", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Grounded.Sufficient {
		t.Error("sufficient_context is true for a question the corpus has no word of")
	}
	res, err = p.Retrieve(ctx, retrieval.Query{Question: "What is ROS 2?", TopK: 5})
	if err != nil || !res.Grounded.Sufficient {
		t.Errorf("What is ROS 2?: sufficient %v, err %v", res.Grounded.Sufficient, err)
	}
}

func TestStatsNameTheSearch(t *testing.T) {
	ix, _, err := OpenDemo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ix, err = ix.WithMode(ModeBM25); err != nil {
		t.Fatal(err)
	}
	st, err := ix.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(st.Notes, "search: BM25 + title match") {
		t.Errorf("notes %q lack the search mode", st.Notes)
	}
}

// TestQueryExpansion: expanding a question (the tuning harness's BM25
// with the word vectors' nearest words) adds, for a term, corpus words
// near it that the question lacks, each weighted below the term itself
// and counted in the normaliser, so scores stay in 0..1 and chunks with
// only the near word now score.
func TestQueryExpansion(t *testing.T) {
	ix, _, err := OpenDemo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const text = "walking robots"
	q := ix.bm25.query(text)
	x := ix.bm25.query(text)
	if err := ix.bm25.expand(&x, text, 2, 0.5, 0.5); err != nil {
		t.Fatal(err)
	}
	if len(x.rows) <= len(q.rows) || x.best <= q.best {
		t.Fatalf("expansion added nothing: %d rows (best %v), %d before (best %v)", len(x.rows), x.best, len(q.rows), q.best)
	}
	for k := len(q.rows); k < len(x.rows); k++ {
		j := x.rows[k]
		if full := bm25IDF(ix.bm25.n, int(ix.bm25.start[j+1]-ix.bm25.start[j])); x.idf[k] <= 0 || x.idf[k] > 0.5*full {
			t.Errorf("expansion %d weighs %v, its IDF is %v: want at most half", k, x.idf[k], full)
		}
	}
	plain, wide := make([]float64, ix.Len()), make([]float64, ix.Len())
	ix.bm25.scores(q, plain)
	ix.bm25.scores(x, wide)
	gained := 0
	for i := range wide {
		if wide[i] < 0 || wide[i] > 1 {
			t.Fatalf("chunk %d scores %v", i, wide[i])
		}
		if plain[i] == 0 && wide[i] > 0 {
			gained++
		}
	}
	if gained == 0 {
		t.Error("no chunk with only a near word scores")
	}
}
