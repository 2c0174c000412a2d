// Package bm25 encodes text as the sparse vectors of Qdrant's and
// FastEmbed's "Qdrant/bm25" model, so that a query ragscope encodes finds
// the same points as the chatbot's, and so that tests and the local index
// can build documents the way an ingestion script does.
//
// Text is split into word tokens on anything but letters, digits and "_",
// lowercased; NLTK's English stop words and tokens longer than 40
// characters are dropped; the rest are reduced to their English Snowball
// stems. A stem's index is the absolute value of its signed 32-bit
// murmur3 hash (seed 0), as FastEmbed computes it. A query holds each stem
// once with weight 1 (Qdrant's idf modifier supplies the rest of BM25); a
// document holds each stem's BM25 term-frequency weight.
package bm25

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/twmb/murmur3"
)

// Model is the model name Qdrant's inference and FastEmbed use.
const Model = "qdrant/bm25"

// Document weighting parameters, FastEmbed's defaults.
const (
	K1     = 1.2
	B      = 0.75
	AvgLen = 256.0
	// maxTokenLen drops longer tokens (counted in characters) before stemming.
	maxTokenLen = 40
)

// Vector is a sparse vector: indices ascending, one value each.
type Vector struct {
	Indices []uint32
	Values  []float32
}

// Len is the number of non-zero entries.
func (v Vector) Len() int { return len(v.Indices) }

// Tokens returns text's stems in order, stop words and over-long tokens
// dropped (duplicates kept).
func Tokens(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_')
	})
	out := words[:0]
	for _, w := range words {
		if stopWords[w] || utf8.RuneCountInString(w) > maxTokenLen {
			continue
		}
		if s := english.Stem(w, true); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// TokenID is a stem's index: |int32(murmur3_32(stem, seed 0))|.
func TokenID(stem string) uint32 {
	h := int64(int32(murmur3.SeedSum32(0, []byte(stem))))
	if h < 0 {
		h = -h
	}
	return uint32(h)
}

// Query encodes a question: each distinct stem once, weight 1.
func Query(text string) Vector {
	seen := map[uint32]bool{}
	for _, t := range Tokens(text) {
		seen[TokenID(t)] = true
	}
	w := make(map[uint32]float64, len(seen))
	for id := range seen {
		w[id] = 1
	}
	return fromMap(w)
}

// Document encodes a chunk with BM25 term-frequency weights:
// tf·(k1+1) / (tf + k1·(1 − b + b·len/avg_len)), len the number of stems.
func Document(text string) Vector {
	toks := Tokens(text)
	counts := map[string]int{}
	for _, t := range toks {
		counts[t]++
	}
	norm := K1 * (1 - B + B*float64(len(toks))/AvgLen)
	w := make(map[uint32]float64, len(counts))
	for t, n := range counts {
		// Two stems hashing to one index: FastEmbed keeps the last; both
		// are kept here by summing, which only differs on a collision.
		w[TokenID(t)] += float64(n) * (K1 + 1) / (float64(n) + norm)
	}
	return fromMap(w)
}

func fromMap(w map[uint32]float64) Vector {
	v := Vector{Indices: make([]uint32, 0, len(w))}
	for id := range w {
		v.Indices = append(v.Indices, id)
	}
	sort.Slice(v.Indices, func(i, j int) bool { return v.Indices[i] < v.Indices[j] })
	v.Values = make([]float32, len(v.Indices))
	for i, id := range v.Indices {
		v.Values[i] = float32(w[id])
	}
	return v
}

// stopWords is NLTK's English stop-word list, which FastEmbed's
// Qdrant/bm25 ships as its stop words.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you you're you've you'll you'd your
yours yourself yourselves he him his himself she she's her hers herself it it's its itself they them
their theirs themselves what which who whom this that that'll these those am is are was were be been
being have has had having do does did doing a an the and but if or because as until while of at by for
with about against between into through during before after above below to from up down in out on off
over under again further then once here there when where why how all any both each few more most other
some such no nor not only own same so than too very s t can will just don don't should should've now d
ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven
haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn
wasn't weren weren't won won't wouldn wouldn't`) {
		m[w] = true
	}
	return m
}()
