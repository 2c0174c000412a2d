package local

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"runtime"
	"slices"
	"sync"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
	"ragscope/retrieval/store/local/internal/flat"
)

// bm25Index is Okapi BM25 over every chunk of an index, as postings that
// an index file stores and a load uses where they lie: term t (keys[t], a
// hash of the term) occurs in chunks doc[start[t]:start[t+1]] (ascending)
// with the term-frequency factors tf[start[t]:start[t+1]], each
//
//	f (k1+1) / (f + k1 (1 - b + b |d| / avgdl))
//
// so a question's score for a chunk is the sum over its terms of the
// term's IDF (from its document frequency, the length of its postings)
// times that factor. The terms are embed.Terms of the chunk's title,
// section and text (retrieval.RerankDocument), as the BM25 reranker scores
// them. It is read-only after it is made and safe for concurrent use.
type bm25Index struct {
	n     int
	keys  []uint64
	start []int32
	doc   []int32
	tf    []float32
	// vocab is the corpus's words among the word vectors' (wordSet).
	vocabOnce sync.Once
	vocab     *embed.WordSet
	vocabErr  error
}

// termKey is the key of a term in a bm25Index: 64-bit FNV-1a, so that a
// saved index needs no term strings and a lookup is a binary search.
func termKey(term string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(term))
	return h.Sum64()
}

// bm25Doc is the text BM25 scores of a chunk.
func bm25Doc(c *retrieval.Chunk) string { return retrieval.RerankDocument(c) }

// newBM25Index counts the terms of chunks, across the CPUs.
func newBM25Index(ctx context.Context, chunks []retrieval.Chunk) (*bm25Index, error) {
	type docTerms struct {
		keys []uint64
		tf   []int32
		len  int
	}
	docs := make([]docTerms, len(chunks))
	workers := max(1, min(runtime.GOMAXPROCS(0), (len(chunks)+255)/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			counts := map[uint64]int32{}
			for i := w; i < len(chunks); i += workers {
				if i%ctxCheckEvery == w && ctx.Err() != nil {
					return
				}
				terms := embed.Terms(bm25Doc(&chunks[i]))
				clear(counts)
				for _, t := range terms {
					counts[termKey(t)]++
				}
				d := docTerms{keys: make([]uint64, 0, len(counts)), len: len(terms)}
				for k := range counts {
					d.keys = append(d.keys, k)
				}
				slices.Sort(d.keys)
				d.tf = make([]int32, len(d.keys))
				for j, k := range d.keys {
					d.tf[j] = counts[k]
				}
				docs[i] = d
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lexical index: %w", err)
	}
	df := map[uint64]int32{}
	total := 0
	for _, d := range docs {
		total += d.len
		for _, k := range d.keys {
			df[k]++
		}
	}
	avgdl := 1.0
	if len(docs) > 0 {
		avgdl = max(1, float64(total)/float64(len(docs)))
	}
	ix := &bm25Index{n: len(chunks), keys: make([]uint64, 0, len(df))}
	for k := range df {
		ix.keys = append(ix.keys, k)
	}
	slices.Sort(ix.keys)
	ix.start = make([]int32, len(ix.keys)+1)
	row := make(map[uint64]int32, len(ix.keys))
	for j, k := range ix.keys {
		ix.start[j+1] = ix.start[j] + df[k]
		row[k] = int32(j)
	}
	npost := ix.start[len(ix.keys)]
	ix.doc = make([]int32, npost)
	ix.tf = make([]float32, npost)
	next := slices.Clone(ix.start[:len(ix.keys)])
	for i, d := range docs {
		for j, k := range d.keys {
			r := row[k]
			ix.doc[next[r]] = int32(i)
			ix.tf[next[r]] = float32(bm25TF(float64(d.tf[j]), float64(d.len), avgdl))
			next[r]++
		}
	}
	return ix, nil
}

// query is a question's terms as the index sees them: the IDF of each
// term, and the rows of those the corpus has.
type bm25Query struct {
	rows []int32
	idf  []float64
	// best is the score of a chunk that holds every term, saturated: the
	// normaliser that puts scores in 0..1.
	best float64
	// known tells whether any term occurs in the corpus.
	known bool
}

// query looks the distinct terms of text up.
func (ix *bm25Index) query(text string) bm25Query {
	var q bm25Query
	for t := range distinct(embed.Terms(text)) {
		j, ok := slices.BinarySearch(ix.keys, termKey(t))
		df := 0
		if ok {
			df = int(ix.start[j+1] - ix.start[j])
		}
		idf := bm25IDF(ix.n, df)
		q.best += idf * (bm25K1 + 1)
		if ok {
			q.rows = append(q.rows, int32(j))
			q.idf = append(q.idf, idf)
			q.known = true
		}
	}
	return q
}

// scores adds to out[i] chunk i's BM25 score for q divided by q.best (so
// in 0..1).
func (ix *bm25Index) scores(q bm25Query, out []float64) {
	if q.best <= 0 {
		return
	}
	for k, j := range q.rows {
		lo, hi := ix.start[j], ix.start[j+1]
		w := q.idf[k] / q.best
		tf := ix.tf[lo:hi]
		for p, d := range ix.doc[lo:hi] {
			if uint(d) < uint(len(out)) {
				out[d] += w * float64(tf[p])
			}
		}
	}
}

// encodedLen is the length of the index in its file layout (see write).
func (ix *bm25Index) encodedLen() int {
	padded := func(n int) int { return n + flat.PadLen(n) }
	return 24 + 8*len(ix.keys) + padded(4*len(ix.start)) + 2*padded(4*len(ix.doc))
}

// write writes the index in its file layout, a block at a time (a large
// index's postings are not copied whole): u64 chunks, u64 terms, u64
// postings, then keys, start, doc and tf, each padded to 8 bytes.
func (ix *bm25Index) write(w io.Writer) error {
	le := binary.LittleEndian
	b := le.AppendUint64(nil, uint64(ix.n))
	b = le.AppendUint64(b, uint64(len(ix.keys)))
	b = le.AppendUint64(b, uint64(len(ix.doc)))
	if _, err := w.Write(b); err != nil {
		return err
	}
	const block = 1 << 13
	buf := make([]byte, 0, 8*block)
	put := func(n int, appendTo func(b []byte, lo, hi int) []byte) error {
		for lo := 0; lo < n; lo += block {
			buf = appendTo(buf[:0], lo, min(lo+block, n))
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	var zeros [flat.Align]byte
	pad := func(n int) error { _, err := w.Write(zeros[:flat.PadLen(n)]); return err }
	return errors.Join(
		put(len(ix.keys), func(b []byte, lo, hi int) []byte { return flat.AppendUint64s(b, ix.keys[lo:hi]) }),
		put(len(ix.start), func(b []byte, lo, hi int) []byte { return flat.AppendInt32s(b, ix.start[lo:hi]) }),
		pad(4*len(ix.start)),
		put(len(ix.doc), func(b []byte, lo, hi int) []byte { return flat.AppendInt32s(b, ix.doc[lo:hi]) }),
		pad(4*len(ix.doc)),
		put(len(ix.tf), func(b []byte, lo, hi int) []byte { return flat.AppendFloat32s(b, ix.tf[lo:hi]) }),
		pad(4*len(ix.tf)),
	)
}

// encode returns the index in its file layout.
func (ix *bm25Index) encode() []byte {
	var b bytes.Buffer
	b.Grow(ix.encodedLen())
	_ = ix.write(&b) // a bytes.Buffer does not fail
	return b.Bytes()
}

// decodeBM25Index reads what encode wrote, in place (b must not change
// after), checking that it fits n chunks. It reads the postings' offsets,
// not the postings: their bytes are read when a question needs them.
func decodeBM25Index(b []byte, n int) (*bm25Index, error) {
	le := binary.LittleEndian
	if len(b) < 24 {
		return nil, errors.New("lexical index: truncated")
	}
	chunks, terms, posts := le.Uint64(b), le.Uint64(b[8:]), le.Uint64(b[16:])
	if chunks != uint64(n) {
		return nil, fmt.Errorf("lexical index: %d chunks, the index has %d", chunks, n)
	}
	if terms > uint64(len(b)) || posts > uint64(len(b)) {
		return nil, errors.New("lexical index: longer than the file")
	}
	off := 24
	take := func(size int) ([]byte, error) {
		if size > len(b)-off {
			return nil, errors.New("lexical index: longer than the file")
		}
		s := b[off : off+size]
		off += size + flat.PadLen(size)
		return s, nil
	}
	ix := &bm25Index{n: n}
	parts := []struct {
		size int
		set  func([]byte)
	}{
		{8 * int(terms), func(s []byte) { ix.keys = flat.Uint64s(s) }},
		{4 * (int(terms) + 1), func(s []byte) { ix.start = flat.Int32s(s) }},
		{4 * int(posts), func(s []byte) { ix.doc = flat.Int32s(s) }},
		{4 * int(posts), func(s []byte) { ix.tf = flat.Float32s(s) }},
	}
	for _, p := range parts {
		s, err := take(p.size)
		if err != nil {
			return nil, err
		}
		p.set(s)
	}
	if off != len(b) {
		return nil, errors.New("lexical index: trailing bytes")
	}
	// Offsets are checked (a term's postings must lie in the arrays); the
	// chunk numbers are checked where they are used.
	if ix.start[0] != 0 || ix.start[terms] != int32(posts) {
		return nil, errors.New("lexical index: bad postings offsets")
	}
	for j := range int(terms) {
		if ix.start[j+1] < ix.start[j] {
			return nil, errors.New("lexical index: bad postings offsets")
		}
	}
	return ix, nil
}

// idfOf is the IDF of term in the index (a term it lacks gets the IDF of
// a term in no chunk).
func (ix *bm25Index) idfOf(term string) float64 {
	j, ok := slices.BinarySearch(ix.keys, termKey(term))
	df := 0
	if ok {
		df = int(ix.start[j+1] - ix.start[j])
	}
	return bm25IDF(ix.n, df)
}

// has tells whether term occurs in any chunk.
func (ix *bm25Index) has(term string) bool {
	_, ok := slices.BinarySearch(ix.keys, termKey(term))
	return ok
}

// wordSet is the words of the offline embedder's word vectors that occur
// in the corpus, made on first use (query expansion).
func (ix *bm25Index) wordSet() (*embed.WordSet, error) {
	ix.vocabOnce.Do(func() {
		ix.vocab, ix.vocabErr = embed.NewWordSet(ix.has)
	})
	return ix.vocab, ix.vocabErr
}

// expand adds to q, for each of text's terms, the k words nearest to it
// in the offline embedder's word vectors (cosine at least minCos) that
// occur in the corpus and are not terms of the question, each weighted
// w times its cosine (a word two terms bring keeps its better weight).
// The normaliser grows with them, so scores stay in 0..1.
func (ix *bm25Index) expand(q *bm25Query, text string, k int, w, minCos float64) error {
	terms := distinct(embed.Terms(text))
	words := slices.Sorted(maps.Keys(terms))
	set, err := ix.wordSet()
	if err != nil {
		return err
	}
	near := set.Nearest(words, k, minCos, terms)
	weight := map[string]float64{}
	for _, ns := range near {
		for _, n := range ns {
			weight[n.Word] = max(weight[n.Word], w*n.Cos)
		}
	}
	for _, t := range slices.Sorted(maps.Keys(weight)) {
		j, _ := slices.BinarySearch(ix.keys, termKey(t))
		idf := weight[t] * bm25IDF(ix.n, int(ix.start[j+1]-ix.start[j]))
		q.best += idf * (bm25K1 + 1)
		q.rows = append(q.rows, int32(j))
		q.idf = append(q.idf, idf)
	}
	return nil
}
