package embed

import "math"

// zipfNorm is the harmonic number of GloVe 6B's 400,000-word vocabulary,
// ln(400000) + Euler's constant: under Zipf's law the word of 0-based rank r
// has probability 1 / ((r+1) * zipfNorm).
const zipfNorm = 13.4769

// fitSemantic estimates each word's share of the corpus and, if configured,
// the corpus's common component (first principal component of the documents'
// SIF vectors), which mostly encodes "this is English prose about robots"
// and would otherwise dominate every similarity.
func (m *Model) fitSemantic(docs [][]token) {
	counts := make(map[string]int)
	total := 0
	for _, d := range docs {
		for _, t := range d {
			counts[t.main]++
			for _, a := range t.alts {
				counts[a]++
			}
			total++
		}
	}
	m.pCorpus = make(map[string]float32, len(counts))
	for w, c := range counts {
		m.pCorpus[w] = float32(float64(c) / float64(total))
	}
	if !m.cfg.removePC || m.glove == nil || len(docs) < 2 {
		return
	}
	var cov [gloveDim * gloveDim]float64
	x := make([]float32, gloveDim)
	for _, d := range docs {
		clear(x)
		m.sifSum(d, x)
		n := norm(x)
		if n == 0 {
			continue
		}
		for i := range x {
			xi := float64(x[i]) / n
			row := cov[i*gloveDim : (i+1)*gloveDim]
			for j := range row {
				row[j] += xi * float64(x[j]) / n
			}
		}
	}
	m.pc = principal(cov[:], gloveDim)
}

// principal returns the unit leading eigenvector of the symmetric n x n
// matrix c by power iteration from a fixed start, or nil if c is zero.
func principal(c []float64, n int) []float32 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1 / math.Sqrt(float64(n))
	}
	w := make([]float64, n)
	for iter := 0; iter < 200; iter++ {
		for i := range w {
			var s float64
			row := c[i*n : (i+1)*n]
			for j, cij := range row {
				s += cij * v[j]
			}
			w[i] = s
		}
		var nn float64
		for _, x := range w {
			nn += x * x
		}
		nn = math.Sqrt(nn)
		if nn == 0 {
			return nil
		}
		var delta float64
		for i := range v {
			x := w[i] / nn
			delta += math.Abs(x - v[i])
			v[i] = x
		}
		if delta < 1e-12 {
			break
		}
	}
	out := make([]float32, n)
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// sifWeight is a/(a+p(w)), p(w) mixing the word's Zipf probability from its
// GloVe frequency rank with its share of the corpus.
func (m *Model) sifWeight(word string, row int32) float32 {
	pZipf := 1 / ((float64(m.glove.ranks[row]) + 1) * zipfNorm)
	p := (1-m.cfg.corpusBeta)*pZipf + m.cfg.corpusBeta*float64(m.pCorpus[word])
	return float32(m.cfg.sifA / (m.cfg.sifA + p))
}

// sifSum adds the SIF-weighted GloVe vectors of toks to dst. A token with no
// vector of its own uses the mean of its alternative spellings' vectors.
func (m *Model) sifSum(toks []token, dst []float32) {
	if m.glove == nil {
		return
	}
	for _, t := range toks {
		if r := m.glove.lookup(t.main); r >= 0 {
			m.glove.addScaled(dst, r, m.sifWeight(t.main, r))
			continue
		}
		known := 0
		for _, a := range t.alts {
			if m.glove.lookup(a) >= 0 {
				known++
			}
		}
		for _, a := range t.alts {
			if r := m.glove.lookup(a); r >= 0 {
				m.glove.addScaled(dst, r, m.sifWeight(a, r)/float32(known))
			}
		}
	}
}

// semanticVector writes the SIF vector of toks, less its projection on the
// common component, into dst, which must be zero.
func (m *Model) semanticVector(toks []token, dst []float32) {
	m.sifSum(toks, dst)
	if m.pc == nil {
		return
	}
	var dot float32
	for i, u := range m.pc {
		dot += dst[i] * u
	}
	for i, u := range m.pc {
		dst[i] -= dot * u
	}
}
