package embed

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"

	"ragscope/internal/splitmix"
)

// Feature kinds, hashed into a feature's key so that the word "ros" and the
// character gram "ros" differ.
const (
	kindWord byte = iota + 1
	kindAlt
	kindChar
	kindBigram
)

// forEachFeature calls fn with the key and kind of every lexical feature of
// toks, once per occurrence.
func (m *Model) forEachFeature(toks []token, fn func(key uint64, kind byte)) {
	for i, t := range toks {
		fn(hashFeature(kindWord, t.main, ""), kindWord)
		for _, a := range t.alts {
			fn(hashFeature(kindWord, a, ""), kindAlt)
		}
		if i > 0 && m.cfg.bigramW > 0 {
			fn(hashFeature(kindBigram, toks[i-1].main, t.main), kindBigram)
		}
		if isAllDigits(t.main) {
			continue
		}
		m.forEachGram(t.main, fn)
	}
}

// forEachGram emits the character n-grams of "<word>", '<' and '>' marking
// the word's edges.
func (m *Model) forEachGram(word string, fn func(key uint64, kind byte)) {
	buf := make([]byte, 0, 4*maxTokenRunes)
	s := append(append(append(buf, '<'), word...), '>')
	// starts holds the byte offset of each rune, then len(s).
	starts := make([]int, 0, maxTokenRunes+4)
	for i := range string(s) {
		starts = append(starts, i)
	}
	n := len(starts)
	starts = append(starts, len(s))
	for size := m.cfg.minGram; size <= m.cfg.maxGram; size++ {
		for r := 0; r+size <= n; r++ {
			fn(hashBytes(kindChar, s[starts[r]:starts[r+size]]), kindChar)
		}
	}
}

func (m *Model) kindWeight(kind byte) float32 {
	switch kind {
	case kindWord:
		return float32(m.cfg.wordW)
	case kindAlt:
		return float32(m.cfg.altW)
	case kindChar:
		return float32(m.cfg.charW)
	default:
		return float32(m.cfg.bigramW)
	}
}

// feature is one lexical feature of a text and its TF-IDF weight; id is
// its row in the model's lexTable, or -1 when no fitted document has it.
type feature struct {
	key uint64
	w   float32
	id  int32
}

// seen tells whether any fitted document has the feature.
func (f feature) seen() bool { return f.id >= 0 }

// lexTable is the fitted lexical model: every feature met in the corpus,
// sorted by key, with its IDF and its postings, the fitted documents' unit
// TF-IDF weights for it: feature j occurs in documents doc[start[j]:start[j+1]]
// (ascending) with weights w[start[j]:start[j+1]]. The postings give every
// question-document lexical cosine exactly, at any corpus size
// (LexicalCosines). Flat slices, so that a saved table loads with no
// hashing or rebuilding.
type lexTable struct {
	keys  []uint64
	idf   []float32
	start []int32
	doc   []int32
	w     []float32
	// slots find a key's row and IDF while fitting (see hashSlots); nil
	// after Restore, where rows are found by binary search (a question
	// has a few hundred features).
	slots []lexSlot
	// lazy, after Restore, checks the postings as they are first read.
	lazy *lazyPostings
}

// lexSlot is a slot of lexTable's open-addressing hash table: a key, its
// row (-1 in an empty slot) and its IDF side by side, so that a lookup of
// a fitted corpus's every feature, a few million, costs one cache miss.
type lexSlot struct {
	key uint64
	row int32
	idf float32
}

// hashSlots fills t.slots from t.keys and t.idf: a table of a power of two
// slots, at most half full, probed linearly from the key's low bits (keys
// are already well-mixed hashes).
func (t *lexTable) hashSlots() {
	size := 1
	for size < 2*len(t.keys) {
		size *= 2
	}
	t.slots = make([]lexSlot, size)
	for i := range t.slots {
		t.slots[i].row = -1
	}
	mask := uint64(size - 1)
	for j, k := range t.keys {
		i := k & mask
		for t.slots[i].row >= 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = lexSlot{key: k, row: int32(j), idf: t.idf[j]}
	}
}

// lookup returns the row and IDF of key, or -1 and 0.
func (t *lexTable) lookup(key uint64) (int32, float32) {
	if t == nil {
		return -1, 0
	}
	if t.slots != nil {
		mask := uint64(len(t.slots) - 1)
		for i := key & mask; ; i = (i + 1) & mask {
			s := &t.slots[i]
			if s.row < 0 {
				return -1, 0
			}
			if s.key == key {
				return s.row, s.idf
			}
		}
	}
	if j, ok := slices.BinarySearch(t.keys, key); ok {
		return int32(j), t.idf[j]
	}
	return -1, 0
}

// invIndex is an inverted index of sparse vectors in compressed rows: for
// the feature with id i, vectors vec[start[i]:start[i+1]] have the weights
// w[start[i]:start[i+1]].
type invIndex struct {
	ids   map[uint64]int32
	start []int32
	vec   []int32
	w     []float32
}

func newInvIndex(vecs [][]feature) *invIndex {
	ix := &invIndex{ids: make(map[uint64]int32)}
	var counts []int32
	total := 0
	for _, v := range vecs {
		for _, f := range v {
			id, ok := ix.ids[f.key]
			if !ok {
				id = int32(len(counts))
				ix.ids[f.key] = id
				counts = append(counts, 0)
			}
			counts[id]++
			total++
		}
	}
	ix.start = make([]int32, len(counts)+1)
	for i, c := range counts {
		ix.start[i+1] = ix.start[i] + c
	}
	ix.vec = make([]int32, total)
	ix.w = make([]float32, total)
	next := append([]int32(nil), ix.start[:len(counts)]...)
	for i, v := range vecs {
		for _, f := range v {
			id := ix.ids[f.key]
			ix.vec[next[id]] = int32(i)
			ix.w[next[id]] = f.w
			next[id]++
		}
	}
	return ix
}

// addProducts adds to out[i] the dot product of x with indexed vector i.
func (ix *invIndex) addProducts(x []feature, out []float64) {
	for _, f := range x {
		id, ok := ix.ids[f.key]
		if !ok {
			continue
		}
		lo, hi := ix.start[id], ix.start[id+1]
		fw := float64(f.w)
		for k, v := range ix.vec[lo:hi] {
			out[v] += fw * float64(ix.w[int(lo)+k])
		}
	}
}

// postingsBatch is how many documents' features are computed at once while
// the postings are filled: it bounds the memory of a large build.
const postingsBatch = 2048

// fitLexical fits IDF, the postings and, for a small corpus, the projection
// on docs.
func (m *Model) fitLexical(docs [][]token) {
	df := make(map[uint64]int32)
	seen := make(map[uint64]struct{})
	for _, d := range docs {
		clear(seen)
		m.forEachFeature(d, func(key uint64, _ byte) {
			if _, ok := seen[key]; !ok {
				seen[key] = struct{}{}
				df[key]++
			}
		})
	}
	m.docs = len(docs)
	n := float64(len(docs))
	m.unseenIDF = float32(math.Log(n+1) + 1)
	t := &lexTable{keys: slices.Sorted(maps.Keys(df))}
	t.idf = make([]float32, len(t.keys))
	t.start = make([]int32, len(t.keys)+1)
	for j, k := range t.keys {
		c := df[k]
		t.idf[j] = float32(math.Log((n+1)/(float64(c)+1)) + 1)
		t.start[j+1] = t.start[j] + c
	}
	t.hashSlots()
	clear(df)
	m.lex = t
	total := t.start[len(t.keys)]
	t.doc = make([]int32, total)
	t.w = make([]float32, total)
	next := slices.Clone(t.start[:len(t.keys)])
	// Documents' unit TF-IDF vectors, a batch at a time across the CPUs,
	// then scattered in document order so each posting list is ascending.
	vecs := make([][]feature, min(postingsBatch, len(docs)))
	for lo := 0; lo < len(docs); lo += postingsBatch {
		hi := min(lo+postingsBatch, len(docs))
		m.unitFeatures(docs[lo:hi], vecs[:hi-lo])
		for i, v := range vecs[:hi-lo] {
			for _, f := range v {
				t.doc[next[f.id]] = int32(lo + i)
				t.w[next[f.id]] = f.w
				next[f.id]++
			}
			if len(docs) >= m.cfg.lexDim {
				vecs[i] = nil
			}
		}
	}
	if len(docs) > 0 && len(docs) < m.cfg.lexDim && !m.cfg.noProjection {
		m.proj = m.fitProjection(vecs[:len(docs)])
	}
}

// unitFeatures fills out[i] with the unit TF-IDF vector of docs[i], across
// the CPUs (each goroutine fills its own slots: the result does not depend
// on them).
func (m *Model) unitFeatures(docs [][]token, out [][]feature) {
	n := len(docs)
	workers := min(runtime.GOMAXPROCS(0), (n+255)/256)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				out[i] = unit(m.features(docs[i]))
			}
		})
	}
	wg.Wait()
}

// unit scales f in place to unit length (a zero vector stays zero) and
// returns it.
func unit(f []feature) []feature {
	var ss float64
	for _, x := range f {
		ss += float64(x.w) * float64(x.w)
	}
	if ss > 0 {
		k := float32(1 / math.Sqrt(ss))
		for j := range f {
			f[j].w *= k
		}
	}
	return f
}

// features returns the TF-IDF weights of toks' lexical features in
// first-seen order; a feature no fitted document has gets the largest IDF.
// Term frequency is sublinear, 1 + ln(tf); a feature met as several kinds
// takes the largest kind weight.
func (m *Model) features(toks []token) []feature {
	sc, _ := m.scratch.Get().(*featureScratch)
	if sc == nil {
		sc = &featureScratch{counts: make(map[uint64]featureCount)}
	}
	defer func() {
		clear(sc.counts)
		sc.order = sc.order[:0]
		m.scratch.Put(sc)
	}()
	counts, order := sc.counts, sc.order
	m.forEachFeature(toks, func(key uint64, kind byte) {
		c, ok := counts[key]
		if !ok {
			order = append(order, key)
		}
		c.n++
		c.kind = max(c.kind, m.kindWeight(kind))
		counts[key] = c
	})
	out := make([]feature, len(order))
	for i, key := range order {
		c := counts[key]
		id, idf := m.lex.lookup(key)
		if id < 0 {
			idf = m.unseenIDF
		}
		out[i] = feature{key, c.kind * (1 + float32(math.Log(float64(c.n)))) * idf, id}
	}
	sc.order = order
	return out
}

// featureCount is a feature's number of occurrences in a text and the
// largest weight of the kinds it occurred as.
type featureCount struct {
	n    float32
	kind float32
}

// featureScratch is reusable working memory for Model.features.
type featureScratch struct {
	counts map[uint64]featureCount
	order  []uint64
}

// hashInto adds the feature-hashed feats to dst: each feature goes to
// bucket key mod len(dst) with the sign of the key's top bit.
func hashInto(dst []float32, feats []feature) {
	buckets := uint64(len(dst))
	for _, f := range feats {
		w := f.w
		if f.key>>63 != 0 {
			w = -w
		}
		dst[f.key%buckets] += w
	}
}

// lexicalVector writes the unnormalised lexical vector of toks into dst,
// which must be zero: for a small corpus the projection's coordinates and
// the rest's norm in the last dimension, otherwise the whole vector hashed.
func (m *Model) lexicalVector(toks []token, dst []float32) {
	feats := m.features(toks)
	p := m.proj
	if p == nil {
		hashInto(dst, feats)
		return
	}
	r := p.rank
	y := make([]float64, r)
	p.pivots.addProducts(feats, y)
	// Forward substitution, L y = A x.
	for i := 0; i < r; i++ {
		s := y[i]
		for j, lij := range p.l[i*r : i*r+i] {
			s -= lij * y[j]
		}
		y[i] = s / p.l[i*r+i]
		dst[i] = float32(y[i])
	}
	var seenSq, unseenSq, ySq float64
	for _, f := range feats {
		w := float64(f.w) * float64(f.w)
		if f.seen() {
			seenSq += w
		} else {
			unseenSq += w
		}
	}
	for _, v := range y {
		ySq += v * v
	}
	// Every document lies in the span: the rest matches nothing, only its
	// norm matters.
	dst[len(dst)-1] = float32(math.Sqrt(max(0, seenSq-ySq) + unseenSq))
}

// LexicalCosines returns the exact cosine of text's TF-IDF vector with
// each fitted document's, in the order the documents were given to New
// (zeros for a text with no features). It reads only the postings of the
// text's features, so its cost grows with the corpus but not its error.
func (m *Model) LexicalCosines(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lexical cosines: %w", err)
	}
	out := make([]float32, m.docs)
	feats := m.features(tokenize(text))
	var ss float64
	for _, f := range feats {
		ss += float64(f.w) * float64(f.w)
	}
	if ss == 0 || m.lex == nil {
		return out, nil
	}
	inv := float32(1 / math.Sqrt(ss))
	t := m.lex
	for _, f := range feats {
		if !f.seen() {
			continue
		}
		lo, hi := t.start[f.id], t.start[f.id+1]
		if err := t.lazy.check(lo, hi); err != nil {
			return nil, err
		}
		qw := f.w * inv
		ws := t.w[lo:hi]
		for k, d := range t.doc[lo:hi] {
			out[d] += qw * ws[k]
		}
	}
	return out, nil
}

// LexicalInVectors tells whether the lexical parts of the vectors give
// exact lexical cosines by themselves (a corpus of up to 411 documents,
// projected); otherwise they are hashed and LexicalCosines is the exact one.
func (m *Model) LexicalInVectors() bool { return m.proj != nil }

// Docs is the number of fitted documents, the length of LexicalCosines.
func (m *Model) Docs() int { return m.docs }

// SemanticDim is the number of leading dimensions of a vector that hold
// its semantic part; the rest is the lexical part.
func (m *Model) SemanticDim() int { return gloveDim }

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// FNV-1a, 64-bit, finished with a splitmix64 mix so that the low bits used
// for the bucket and the top bit used for the sign are well spread.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashFeature(kind byte, a, b string) uint64 {
	h := uint64(fnvOffset)
	h = (h ^ uint64(kind)) * fnvPrime
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * fnvPrime
	}
	if b != "" {
		h = (h ^ ' ') * fnvPrime
		for i := 0; i < len(b); i++ {
			h = (h ^ uint64(b[i])) * fnvPrime
		}
	}
	return splitmix.Mix64(h)
}

func hashBytes(kind byte, s []byte) uint64 {
	h := uint64(fnvOffset)
	h = (h ^ uint64(kind)) * fnvPrime
	for _, c := range s {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return splitmix.Mix64(h)
}
