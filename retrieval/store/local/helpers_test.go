package local

import (
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"unicode"

	"ragscope/retrieval"
)

// stubEmbedder is a deterministic hashed bag of words, so tests of the
// index and of index files do not depend on package embed's tuning.
type stubEmbedder struct {
	name string
	dim  int
}

func newStub(docs []string) retrieval.Embedder { return stubEmbedder{name: "stub-bow-v1", dim: 64} }

func (s stubEmbedder) Name() string { return s.name }
func (s stubEmbedder) Dim() int     { return s.dim }

func (s stubEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := make([]float32, s.dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%uint32(s.dim)]++
		}
		out[i] = v
	}
	return out, nil
}

// randomUnit returns n random unit vectors of length dim, reproducibly.
func randomUnit(n, dim int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dim)
		var sum float64
		for j := range v {
			x := r.NormFloat64()
			v[j] = float32(x)
			sum += x * x
		}
		inv := float32(1 / math.Sqrt(sum))
		for j := range v {
			v[j] *= inv
		}
		out[i] = v
	}
	return out
}
