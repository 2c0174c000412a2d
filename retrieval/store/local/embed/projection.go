package embed

import "math"

// projection gives a lexical vector x of a small corpus as coordinates on
// an orthonormal basis of the span of the fitted documents (the pivots):
//
//	x . y = P x . P y + (I-P) x . (I-P) y
//
// The pivots are chosen greedily (pivoted Cholesky factorisation of the
// documents' Gram matrix, K[piv,piv] = L L^T). With A the pivots' unit
// TF-IDF vectors as rows, the coordinates are y = L^-1 A x.
//
// A corpus of up to lexDim-1 (411) documents lies entirely in the span, so
// documents have no rest and every question-document dot product of the
// dense vectors is exact; the last dimension holds only the norm of a
// text's rest, which keeps a question's norm honest: one about something
// the corpus never mentions scores low. A larger corpus gets no projection:
// its dense lexical part is feature-hashed, and a search that wants exact
// lexical cosines asks LexicalCosines, which is exact at every size.
type projection struct {
	rank   int
	l      []float64 // rank x rank lower-triangular factor, row-major
	pivots *invIndex // the pivots' unit TF-IDF vectors
}

// pivotTolerance is the squared norm of a document's rest under which it
// counts as lying in the span of the pivots already chosen: a duplicate.
const pivotTolerance = 1e-6

// fitProjection factors the span of vecs, the unit TF-IDF vectors of a
// corpus of fewer than lexDim documents.
func (m *Model) fitProjection(vecs [][]feature) *projection {
	n := len(vecs)
	all := newInvIndex(vecs)
	gramColumn := func(p int, col []float64) { all.addProducts(vecs[p], col) }
	diag := make([]float64, n)
	for i, v := range vecs {
		for _, f := range v {
			diag[i] += float64(f.w) * float64(f.w)
		}
	}
	// One dimension is kept for the rest's norm.
	piv, l := pivotedCholesky(n, diag, gramColumn, m.cfg.lexDim-1)
	if len(piv) == 0 {
		return nil
	}
	pivVecs := make([][]feature, len(piv))
	for k, d := range piv {
		pivVecs[k] = vecs[d]
	}
	return &projection{rank: len(piv), l: l, pivots: newInvIndex(pivVecs)}
}

// pivotedCholesky factors the n x n Gram matrix K, given by its diagonal and
// a function that adds column p to col, greedily: the document whose rest is
// largest becomes the next pivot, until every rest is below pivotTolerance
// or maxRank pivots are chosen. It returns the pivots and the rank x rank
// lower-triangular factor of K restricted to them. Ties go to the lower
// index, so the result is deterministic.
func pivotedCholesky(n int, diag []float64, column func(p int, col []float64), maxRank int) ([]int, []float64) {
	rest := append([]float64(nil), diag...)
	used := make([]bool, n)
	var cols [][]float64 // column j of the n x rank factor
	var piv []int
	for len(piv) < maxRank {
		best := -1
		for i, r := range rest {
			if !used[i] && (best < 0 || r > rest[best]) {
				best = i
			}
		}
		if best < 0 || rest[best] < pivotTolerance {
			break
		}
		d := math.Sqrt(rest[best])
		col := make([]float64, n)
		column(best, col)
		for i := range col {
			if used[i] {
				col[i] = 0
				continue
			}
			s := col[i]
			for _, c := range cols {
				s -= c[i] * c[best]
			}
			col[i] = s / d
		}
		col[best] = d
		for i := range rest {
			if !used[i] {
				rest[i] -= col[i] * col[i]
			}
		}
		used[best] = true
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
