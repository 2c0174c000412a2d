package retrieval

import (
	"hash/fnv"
	"slices"
	"strings"
	"unicode"
)

// dedupKey is what near-duplicate detection compares: the payload content
// hash, a hash of the text, and the sorted set of token hashes.
type dedupKey struct {
	rank     int
	hash     string
	textHash uint64
	tokens   []uint64
}

func newDedupKey(c *Chunk) dedupKey {
	h := fnv.New64a()
	h.Write([]byte(c.Text))
	return dedupKey{hash: c.ContentHash, textHash: h.Sum64(), tokens: TokenSet(c.Text)}
}

// duplicateOf returns the rank of the first accepted key that k duplicates
// and their similarity.
func (k *dedupKey) duplicateOf(accepted []dedupKey) (int, float64, bool) {
	for i := range accepted {
		a := &accepted[i]
		if (k.hash != "" && k.hash == a.hash) || k.textHash == a.textHash {
			return a.rank, 1, true
		}
		if sim, ok := jaccardAtLeast(k.tokens, a.tokens, DedupJaccard); ok {
			return a.rank, sim, true
		}
	}
	return 0, 0, false
}

// TokenSet returns the sorted, distinct hashes of the lowercase word tokens
// (runs of letters and digits) of text.
func TokenSet(text string) []uint64 {
	var out []uint64
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := fnv.New64a()
		h.Write([]byte(strings.ToLower(tok)))
		out = append(out, h.Sum64())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Jaccard returns |A∩B| / |A∪B| of two sorted distinct sets (1 for two
// empty sets).
func Jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// jaccardAtLeast computes Jaccard only when the set sizes allow reaching min
// (|A∩B|/|A∪B| <= min(|A|,|B|)/max(|A|,|B|)).
func jaccardAtLeast(a, b []uint64, min float64) (float64, bool) {
	la, lb := len(a), len(b)
	if la > lb {
		la, lb = lb, la
	}
	if lb > 0 && float64(la)/float64(lb) < min {
		return 0, false
	}
	sim := Jaccard(a, b)
	return sim, sim >= min
}
