package chunkaudit

import "ragscope/retrieval"

// Near-duplicates are found without keeping texts: each chunk keeps a
// MinHash signature of the word-token set the pipeline's dedup compares
// (retrieval.TokenSet), and locality-sensitive hashing over bands of the
// signature proposes candidates, whose Jaccard similarity the signatures
// estimate. Memory is a fixed few hundred bytes per chunk.
const (
	sigSize  = 64
	bands    = 8
	bandRows = sigSize / bands
)

// signature is a MinHash signature: per hash function, the least hash of
// any token.
type signature [sigSize]uint32

// hashSeeds returns the per-function multipliers (odd 64-bit constants from
// a fixed xorshift sequence); computed per call, which costs less than
// signing one token, so nothing is built at initialisation.
func hashSeeds() (s [sigSize]uint64) {
	x := uint64(0x9E3779B97F4A7C15)
	for i := range s {
		x ^= x >> 12
		x ^= x << 25
		x ^= x >> 27
		s[i] = (x * 0x2545F4914F6CDD1D) | 1
	}
	return s
}

// newSignature signs the distinct word tokens of text; ok is false for a
// text with no word token.
func newSignature(text string) (sig signature, ok bool) {
	toks := retrieval.TokenSet(text)
	if len(toks) == 0 {
		return sig, false
	}
	for i := range sig {
		sig[i] = ^uint32(0)
	}
	seeds := hashSeeds()
	for _, t := range toks {
		for i, m := range seeds {
			h := t * m
			h ^= h >> 29
			if v := uint32(h >> 32); v < sig[i] {
				sig[i] = v
			}
		}
	}
	return sig, true
}

// similarity estimates the Jaccard similarity of the two token sets.
func (s *signature) similarity(o *signature) float64 {
	same := 0
	for i := range s {
		if s[i] == o[i] {
			same++
		}
	}
	return float64(same) / sigSize
}

// bandKeys hashes each band of the signature, with the band's number.
func (s *signature) bandKeys() (keys [bands]uint64) {
	for b := range keys {
		h := uint64(14695981039346656037) ^ uint64(b)
		for _, v := range s[b*bandRows : (b+1)*bandRows] {
			h = (h ^ uint64(v)) * 1099511628211
		}
		keys[b] = h
	}
	return keys
}
