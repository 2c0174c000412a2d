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
	"ragscope/retrieval/eval"
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
	var out []readerBook
	for _, name := range readerBooks {
		dir := filepath.Join("testdata", "readers", name)
		ix, c, err := BuildDir(context.Background(), filepath.Join(dir, "docs"), BuildOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		b, err := os.ReadFile(dir + ".yaml")
		if err != nil {
			tb.Fatal(err)
		}
		set, err := eval.Parse(b, name+".yaml")
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, readerBook{name: name, ix: ix, c: c, set: set})
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
// the reader sets (RAGSCOPE_TUNE=readers): how defaultFusion was chosen.
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

// TestDefaultWinsOnHeldBack asks the held-back halves of the reader sets
// (never used to tune) with BM25 alone, the embedder alone and the
// default hybrid: the default must beat both on MRR and hit@1 on every
// set (a tie is not a win). It logs the table of every set, half and mode.
//
// Today no fusion tried wins there (the README's local-search section),
// so the check is opt-in (RAGSCOPE_READERS_GATE=1) until the default is
// changed; the table is logged either way.
func TestDefaultWinsOnHeldBack(t *testing.T) {
	gate := os.Getenv("RAGSCOPE_READERS_GATE") == "1"
	if testing.Short() {
		t.Skip("builds two books")
	}
	for _, b := range loadReaderBooks(t) {
		q := map[SearchMode]map[string]readerScore{}
		for _, m := range SearchModes() {
			q[m] = runReaders(t, b, m, nil)
		}
		for _, half := range []string{"tune", "holdout", ""} {
			for _, m := range SearchModes() {
				t.Logf("| %s | %s | %s | %s |", b.name, cmp.Or(half, "all"), m, q[m][half])
			}
		}
		h := q[DefaultMode]["holdout"]
		for _, m := range []SearchMode{ModeBM25, ModeEmbedder} {
			o := q[m]["holdout"]
			if gate && (h.mrr <= o.mrr || h.hit1 <= o.hit1) {
				t.Errorf("%s held back: the default (%s) does not beat %s (%s)", b.name, h, m, o)
			}
		}
	}
}
