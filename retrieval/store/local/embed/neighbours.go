package embed

import (
	"fmt"
	"sort"
)

// Neighbour is a word of the embedder's word vectors and its cosine
// similarity with the word it neighbours.
type Neighbour struct {
	Word string
	Cos  float64
}

// WordSet is a subset of the embedder's GloVe vocabulary (a corpus's
// words) with unit vectors, searched for the words nearest to a word. It
// is read-only and safe for concurrent use.
type WordSet struct {
	t     *gloveTable
	rows  []int32
	vecs  []float32 // unit vectors, gloveDim each, in rows' order
	words []string
}

// NewWordSet returns the words of the GloVe vocabulary that keep accepts
// (asked once for each of the 50,000 words).
func NewWordSet(keep func(string) bool) (*WordSet, error) {
	t, err := loadGlove()
	if err != nil {
		return nil, fmt.Errorf("word set: %w", err)
	}
	s := &WordSet{t: t}
	for r := range int32(t.rows()) {
		w := t.word(r)
		if !keep(w) {
			continue
		}
		s.rows = append(s.rows, r)
		s.words = append(s.words, w)
		s.vecs = append(s.vecs, t.unit(r)...)
	}
	return s, nil
}

// Len is the number of words in the set.
func (s *WordSet) Len() int { return len(s.rows) }

// Nearest returns, for each of words, up to k words of the set nearest to
// it (cosine of the word vectors, at least minCos, most similar first),
// never the word itself nor one of skip; a word without a vector gets none.
func (s *WordSet) Nearest(words []string, k int, minCos float64, skip map[string]struct{}) [][]Neighbour {
	out := make([][]Neighbour, len(words))
	if k <= 0 {
		return out
	}
	for i, w := range words {
		r := s.t.lookup(w)
		if r < 0 {
			continue
		}
		q := s.t.unit(r)
		var best []Neighbour
		floor := minCos
		for j, row := range s.rows {
			c := float64(Dot(q, s.vecs[j*gloveDim:(j+1)*gloveDim]))
			if c < floor || row == r {
				continue
			}
			if _, no := skip[s.words[j]]; no {
				continue
			}
			best = append(best, Neighbour{Word: s.words[j], Cos: c})
			sort.SliceStable(best, func(a, b int) bool { return best[a].Cos > best[b].Cos })
			if len(best) > k {
				best = best[:k]
			}
			if len(best) == k {
				floor = best[k-1].Cos
			}
		}
		out[i] = best
	}
	return out
}

// unit is row r's vector, dequantised and L2-normalised (zero if it is).
func (t *gloveTable) unit(r int32) []float32 {
	v := make([]float32, t.dim)
	t.addScaled(v, r, 1)
	if n := norm(v); n > 0 {
		scale(v, float32(1/n))
	}
	return v
}

// Dot is the inner product of two vectors (b at least as long as a),
// unrolled by four.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// NearestAmong returns up to k of among nearest to word by the cosine of
// their word vectors (at least minCos, most similar first, ties in
// among's order), never word itself; words without a vector are passed
// over. It looks up only the words given, so it suits a small set such as
// one chunk's words.
func NearestAmong(word string, among []string, k int, minCos float64) ([]Neighbour, error) {
	t, err := loadGlove()
	if err != nil {
		return nil, fmt.Errorf("nearest words: %w", err)
	}
	r := t.lookup(word)
	if r < 0 || k <= 0 {
		return nil, nil
	}
	q := t.unit(r)
	var out []Neighbour
	seen := map[string]bool{word: true}
	for _, w := range among {
		if seen[w] {
			continue
		}
		seen[w] = true
		rw := t.lookup(w)
		if rw < 0 {
			continue
		}
		if c := float64(Dot(q, t.unit(rw))); c >= minCos {
			out = append(out, Neighbour{Word: w, Cos: c})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Cos > out[b].Cos })
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}
