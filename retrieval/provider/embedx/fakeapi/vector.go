// Package fakeapi holds what the in-process provider fakes (coheretest,
// openaitest, geminitest) share: the deterministic vectors they serve,
// which the fake Qdrant (qdranttest) embeds its points with too, so a
// question sent through any fake provider and searched in the fake Qdrant
// gets meaningful hits; and the bookkeeping of their requests (latency,
// queued failures, counts, batch sizes).
package fakeapi

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// Dim is the default vector length (Cohere's v3 english and
// multilingual models).
const Dim = 1024

// stopwords carry no topic, so they do not pull unrelated texts together.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true,
	"on": true, "and": true, "or": true, "is": true, "are": true, "be": true,
	"how": true, "what": true, "do": true, "does": true, "i": true, "it": true,
	"for": true, "with": true, "this": true, "that": true, "as": true, "by": true,
	"can": true, "you": true, "we": true, "from": true, "at": true, "into": true,
}

// Vector embeds text into dim dimensions, deterministically: every content
// word (and its first five letters, a crude stem) is hashed to a dimension
// and a sign, then the vector is L2-normalised. Texts sharing words get a
// high cosine similarity. An empty text gets a fixed unit vector.
func Vector(text string, dim int) []float32 {
	if dim <= 0 {
		dim = Dim
	}
	acc := make([]float64, dim)
	for _, w := range Words(text) {
		add(acc, w, 1)
		if r := []rune(w); len(r) > 5 {
			add(acc, "stem:"+string(r[:5]), 0.5)
		}
	}
	var norm float64
	for _, v := range acc {
		norm += v * v
	}
	out := make([]float32, dim)
	if norm == 0 {
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, v := range acc {
		out[i] = float32(v / norm)
	}
	return out
}

func add(acc []float64, feature string, weight float64) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(feature))
	sum := h.Sum64()
	idx := int(sum % uint64(len(acc)))
	if sum>>63 == 1 {
		weight = -weight
	}
	acc[idx] += weight
}

// Words splits text into lowercase content words (letters and digits),
// dropping stopwords.
func Words(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if !stopwords[f] {
			out = append(out, f)
		}
	}
	return out
}
