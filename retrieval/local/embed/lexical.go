package embed

import "math"

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

// feature is one lexical feature of a text and its TF-IDF weight.
type feature struct {
	key uint64
	w   float32
}

// posting is a feature's weight in one pivot document of the projection.
type posting struct {
	pivot int32
	w     float32
}

// projection maps lexical vectors onto an orthonormal basis of the span of
// the fitted documents' lexical vectors. For any text x and fitted document
// d, proj(x) . proj(d) equals x . d exactly, with no hashing noise; parts of
// x outside the corpus's span cannot match any document and are dropped.
//
// The basis comes from a pivoted Cholesky factorisation of the documents'
// Gram matrix, K[piv,piv] = L L^T: proj(x) = L^-1 (A[piv] x), where the rows
// of A[piv] are the pivot documents' unit TF-IDF vectors.
type projection struct {
	rank     int
	l        []float64            // rank x rank lower-triangular factor, row-major
	postings map[uint64][]posting // feature -> weights in the pivot documents
}

// pivotTolerance is the residual squared norm under which a document counts
// as lying in the span of the pivots already chosen (a near duplicate).
const pivotTolerance = 1e-6

// fitLexical fits IDF on docs and, when there are no more documents than
// lexical dimensions, the exact projection; otherwise vectors are hashed.
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
	m.idf = make(map[uint64]float32, len(df))
	n := float64(len(docs))
	for k, c := range df {
		m.idf[k] = float32(math.Log((n+1)/(float64(c)+1)) + 1)
	}
	m.unseenIDF = float32(math.Log(n+1) + 1)
	if len(docs) > 0 && len(docs) <= m.cfg.sparseDim && !m.cfg.noProjection {
		m.proj = m.fitProjection(docs)
	}
}

func (m *Model) fitProjection(docs [][]token) *projection {
	n := len(docs)
	vecs := make([][]feature, n)
	type docPosting struct {
		doc int32
		w   float32
	}
	inv := make(map[uint64][]docPosting)
	for i, d := range docs {
		v := m.features(d)
		var ss float64
		for _, f := range v {
			ss += float64(f.w) * float64(f.w)
		}
		if ss > 0 {
			inv := float32(1 / math.Sqrt(ss))
			for j := range v {
				v[j].w *= inv
			}
		}
		vecs[i] = v
	}
	for i, v := range vecs {
		for _, f := range v {
			inv[f.key] = append(inv[f.key], docPosting{int32(i), f.w})
		}
	}
	// Gram matrix, lower triangle filled then mirrored.
	k := make([]float64, n*n)
	for i, v := range vecs {
		row := k[i*n : (i+1)*n]
		for _, f := range v {
			for _, p := range inv[f.key] {
				if int(p.doc) > i {
					break
				}
				row[p.doc] += float64(f.w) * float64(p.w)
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			k[j*n+i] = k[i*n+j]
		}
	}
	piv, l := pivotedCholesky(k, n, m.cfg.sparseDim)
	if len(piv) == 0 {
		return nil
	}
	p := &projection{rank: len(piv), l: l, postings: make(map[uint64][]posting)}
	for r, d := range piv {
		for _, f := range vecs[d] {
			p.postings[f.key] = append(p.postings[f.key], posting{int32(r), f.w})
		}
	}
	return p
}

// pivotedCholesky factors the symmetric positive semi-definite n x n matrix
// k greedily: at each step the document with the largest residual becomes
// the next pivot, until every residual is below pivotTolerance or maxRank
// pivots are chosen. It returns the pivots and the rank x rank
// lower-triangular factor of k restricted to them. Ties go to the lower
// index, so the result is deterministic.
func pivotedCholesky(k []float64, n, maxRank int) ([]int, []float64) {
	resid := make([]float64, n)
	for i := range resid {
		resid[i] = k[i*n+i]
	}
	used := make([]bool, n)
	// cols[j] is column j of the full n x rank factor.
	var cols [][]float64
	var piv []int
	for len(piv) < maxRank {
		best := -1
		for i, r := range resid {
			if !used[i] && (best < 0 || r > resid[best]) {
				best = i
			}
		}
		if best < 0 || resid[best] < pivotTolerance {
			break
		}
		diag := math.Sqrt(resid[best])
		col := make([]float64, n)
		for i := 0; i < n; i++ {
			if used[i] {
				continue
			}
			s := k[i*n+best]
			for _, c := range cols {
				s -= c[i] * c[best]
			}
			col[i] = s / diag
		}
		col[best] = diag
		for i := range resid {
			if !used[i] {
				resid[i] -= col[i] * col[i]
			}
		}
		used[best] = true
		resid[best] = 0
		piv = append(piv, best)
		cols = append(cols, col)
	}
	r := len(piv)
	l := make([]float64, r*r)
	for i, p := range piv {
		for j := 0; j <= i; j++ {
			l[i*r+j] = cols[j][p]
		}
	}
	return piv, l
}

// features returns the TF-IDF weights of toks' lexical features in
// first-seen order. Term frequency is sublinear, 1 + ln(tf); a feature met
// as several kinds takes the largest kind weight. Features the corpus never
// had are dropped, since they cannot match any document.
func (m *Model) features(toks []token) []feature {
	type count struct {
		n    float32
		kind float32
	}
	counts := make(map[uint64]count, 16*len(toks))
	var order []uint64
	m.forEachFeature(toks, func(key uint64, kind byte) {
		c, ok := counts[key]
		if !ok {
			order = append(order, key)
		}
		c.n++
		c.kind = max(c.kind, m.kindWeight(kind))
		counts[key] = c
	})
	out := make([]feature, 0, len(order))
	for _, key := range order {
		idf, ok := m.idf[key]
		if !ok {
			if m.cfg.dropUnseen && m.docs > 0 {
				continue
			}
			idf = m.unseenIDF
		}
		c := counts[key]
		out = append(out, feature{key, c.kind * (1 + float32(math.Log(float64(c.n)))) * idf})
	}
	return out
}

// lexicalVector writes the lexical vector of toks into dst, which must be
// zero: the exact projection if the model has one, else the feature-hashed
// TF-IDF vector with a random sign per feature.
func (m *Model) lexicalVector(toks []token, dst []float32) {
	feats := m.features(toks)
	if p := m.proj; p != nil {
		c := make([]float64, p.rank)
		for _, f := range feats {
			for _, ps := range p.postings[f.key] {
				c[ps.pivot] += float64(f.w) * float64(ps.w)
			}
		}
		// Forward substitution: L y = c.
		for i := 0; i < p.rank; i++ {
			s := c[i]
			row := p.l[i*p.rank : i*p.rank+i]
			for j, lij := range row {
				s -= lij * c[j]
			}
			c[i] = s / p.l[i*p.rank+i]
			dst[i] = float32(c[i])
		}
		return
	}
	buckets := uint64(len(dst))
	for _, f := range feats {
		w := f.w
		if f.key>>63 != 0 {
			w = -w
		}
		dst[f.key%buckets] += w
	}
}

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
	return mix64(h)
}

func hashBytes(kind byte, s []byte) uint64 {
	h := uint64(fnvOffset)
	h = (h ^ uint64(kind)) * fnvPrime
	for _, c := range s {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return mix64(h)
}

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
