package local

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
)

// readerBooks are the reader-phrased golden sets on two public Docusaurus
// textbooks (testdata/readers/README.md): each set's cases are split in
// a tuning half (category "tune") and a held-back half ("holdout").
var readerBooks = []string{"robotics-textbook", "humanoid-course"}

// readerBook is a book's index and golden set.
type readerBook struct {
	name string
	ix   *Index
	c    *Corpus
	set  eval.Set
}

// loadReaderBooks builds each book's index from its docs folder, as
// `ragscope eval --docs DIR` does, and reads its set.
func loadReaderBooks(tb testing.TB) []readerBook {
	tb.Helper()
	return loadReaderBooksChunked(tb, ChunkOptions{})
}

// loadReaderSets reads each book's golden set (no index yet).
func loadReaderSets(tb testing.TB) []readerBook {
	tb.Helper()
	var out []readerBook
	for _, name := range readerBooks {
		b, err := os.ReadFile(filepath.Join("testdata", "readers", name) + ".yaml")
		if err != nil {
			tb.Fatal(err)
		}
		set, err := eval.Parse(b, name+".yaml")
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, readerBook{name: name, set: set})
	}
	return out
}

// readerScore is a run's hit@1, hit@5 and MRR over one half of a set.
type readerScore struct{ hit1, hit5, mrr float64 }

func (s readerScore) String() string {
	return fmt.Sprintf("%.2f | %.2f | %.3f", s.hit1, s.hit5, s.mrr)
}

// runReaders runs book's set in mode (f overriding the hybrid's fusion
// when not nil) with eval.Run, as `ragscope eval` does, and returns the
// summary of each category ("tune", "holdout") and of the whole set ("").
func runReaders(tb testing.TB, book readerBook, mode SearchMode, f *fusion) map[string]readerScore {
	tb.Helper()
	ix, err := book.ix.WithMode(mode)
	if err != nil {
		tb.Fatal(err)
	}
	ix.fusion = f
	p := &retrieval.Pipeline{Embedder: book.c.Embedder, Store: ix}
	rep, err := eval.Run(context.Background(), p, book.set, eval.Options{LatencySample: -1})
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]readerScore{"": {rep.Summary.HitAt1, rep.Summary.HitAtK, rep.Summary.MRR}}
	for _, c := range rep.Categories {
		out[c.Category] = readerScore{c.Summary.HitAt1, c.Summary.HitAtK, c.Summary.MRR}
	}
	return out
}

// TestTuneReaderFusion compares fusion methods on the tuning halves of
// the reader sets (RAGSCOPE_TUNE=readers): how tunedFusion was chosen.
// It never looks at the held-back halves.
func TestTuneReaderFusion(t *testing.T) {
	if os.Getenv("RAGSCOPE_TUNE") != "readers" {
		t.Skip("set RAGSCOPE_TUNE=readers to compare fusions")
	}
	books := loadReaderBooks(t)
	type cand struct {
		mode SearchMode
		f    fusion
	}
	var cands []cand
	for _, vec := range []float64{0.3, 0.5, 0.7, 0.8} {
		for _, h := range []float64{0, 0.5, 1} {
			cands = append(cands,
				cand{ModeHybrid, fusion{method: fuseBlend, vec: vec, title: 0.2, candidates: 100, heading: h}},
				cand{ModeHybrid, fusion{method: fuseMinMax, vec: vec, title: 0.2, candidates: 100, heading: h}},
				cand{ModeHybrid, fusion{method: fuseRRF, vec: vec, title: 0.2, candidates: 100, heading: h, rrfK: 60}},
				cand{ModeHybrid, fusion{method: fuseRRF, vec: vec, title: 0.2, candidates: 100, heading: h, rrfK: 10}})
		}
	}
	// BM25 with query expansion from the word vectors, alone and fused.
	for _, k := range []int{1, 2, 3, 5} {
		for _, w := range []float64{0.3, 0.5, 1} {
			for _, minCos := range []float64{0.5} {
				x := fusion{expand: k, expandW: w, expandMin: minCos, title: 0.2, candidates: 100}
				cands = append(cands, cand{ModeBM25, x})
				for _, vec := range []float64{0.3, 0.5, 0.8} {
					b, m, r := x, x, x
					b.vec, m.vec, r.vec = vec, vec, vec
					m.method, r.method, r.rrfK = fuseMinMax, fuseRRF, 60
					cands = append(cands, cand{ModeHybrid, b}, cand{ModeHybrid, m}, cand{ModeHybrid, r})
				}
			}
		}
	}
	base := map[string]map[SearchMode]readerScore{}
	for _, b := range books {
		base[b.name] = map[SearchMode]readerScore{}
		for _, m := range []SearchMode{ModeBM25, ModeEmbedder} {
			base[b.name][m] = runReaders(t, b, m, nil)["tune"]
			t.Logf("%s %s tune: %s", b.name, m, base[b.name][m])
		}
	}
	for _, c := range cands {
		var line []string
		wins := 0
		sum := 0.0
		for _, b := range books {
			s := runReaders(t, b, c.mode, &c.f)["tune"]
			line = append(line, b.name+" "+s.String())
			sum += s.mrr
			if s.mrr > base[b.name][ModeBM25].mrr && s.hit1 > base[b.name][ModeBM25].hit1 &&
				s.mrr > base[b.name][ModeEmbedder].mrr && s.hit1 > base[b.name][ModeEmbedder].hit1 {
				wins++
			}
		}
		t.Logf("%-8s %-60s wins %d  mrr-sum %.3f  %s", c.mode, c.f.describe(), wins, sum, strings.Join(line, "  "))
	}
}

func (f fusion) describe() string {
	m := map[fusionMethod]string{fuseBlend: "blend", fuseMinMax: "minmax", fuseRRF: fmt.Sprintf("rrf%g", f.rrfK)}[f.method]
	d := fmt.Sprintf("%s vec %.2g title %.2g heading %.2g", m, f.vec, f.title, f.heading)
	if f.expand > 0 {
		d += fmt.Sprintf(" expand %d×%.2g cos≥%.2g", f.expand, f.expandW, f.expandMin)
	}
	return d
}

// tunedFusion is the fusion that did best on the tuning halves of the
// reader sets (TestTuneReaderFusion: it beat BM25 and the embedder on
// both, with the highest MRR summed over the two): reciprocal rank fusion
// (k 60, equal weights) of the cosine and BM25 with each question term
// expanded by its nearest corpus word in the word vectors (weight 0.5×
// cosine, cosine at least 0.5), plus the title match.
var tunedFusion = fusion{method: fuseRRF, rrfK: 60, vec: 0.5, title: 0.2, candidates: 100, expand: 1, expandW: 0.5, expandMin: 0.5}

// TestDefaultChosenOnHeldBack applies the rule that chooses the default
// mode to the held-back halves of the reader sets (never used to tune)
// and to the whole sets: a fusion (the hybrid mode's, or tunedFusion) is
// the default only if it beats both BM25 alone and the embedder alone on
// MRR and on hit@1 (a tie is not a win) on every book's held-back half
// and whole set; else the default is BM25. It logs the table of every
// set, half and mode (the README's).
func TestDefaultChosenOnHeldBack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two books")
	}
	type run struct {
		name string
		mode SearchMode
		f    *fusion
	}
	runs := []run{{"bm25", ModeBM25, nil}, {"hybrid", ModeHybrid, nil}, {"embedder", ModeEmbedder, nil}, {"rrf+expansion", ModeHybrid, &tunedFusion}}
	wins := map[string]bool{"hybrid": true, "rrf+expansion": true}
	for _, b := range loadReaderBooks(t) {
		q := map[string]map[string]readerScore{}
		for _, r := range runs {
			q[r.name] = runReaders(t, b, r.mode, r.f)
		}
		for _, half := range []string{"tune", "holdout", ""} {
			for _, r := range runs {
				t.Logf("| %s | %s | %s | %s |", b.name, cmp.Or(half, "all"), r.name, q[r.name][half])
			}
		}
		for name := range wins {
			for _, half := range []string{"holdout", ""} {
				h := q[name][half]
				for _, m := range []string{"bm25", "embedder"} {
					if o := q[m][half]; h.mrr <= o.mrr || h.hit1 <= o.hit1 {
						t.Logf("%s %s: %s (%s) does not beat %s (%s)", b.name, cmp.Or(half, "all"), name, h, m, o)
						wins[name] = false
					}
				}
			}
		}
	}
	want := ModeBM25
	if wins["hybrid"] || wins["rrf+expansion"] {
		want = ModeHybrid // with the winning fusion as defaultFusion
	}
	if DefaultMode != want {
		t.Errorf("the default mode is %s; the held-back halves choose %s", DefaultMode, want)
	}
}
