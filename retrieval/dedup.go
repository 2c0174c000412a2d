package retrieval

import (
	"hash/fnv"
	"slices"
	"unicode"
	"unicode/utf8"
)

// dedupKey is what near-duplicate detection compares: the payload content
// hash, a hash of the text, and the set of token hashes.
type dedupKey struct {
	rank     int
	hash     string
	textHash uint64
	tokens   tokenSet
}

func newDedupKey(c *Chunk) dedupKey {
	h := fnv.New64a()
	h.Write([]byte(c.Text))
	return dedupKey{hash: c.ContentHash, textHash: h.Sum64(), tokens: newTokenSet(tokenHashes(c.Text))}
}

// duplicateOf returns the rank of the first accepted key that k duplicates
// and their similarity.
func (k *dedupKey) duplicateOf(accepted []dedupKey) (int, float64, bool) {
	for i := range accepted {
		a := &accepted[i]
		if (k.hash != "" && k.hash == a.hash) || k.textHash == a.textHash {
			return a.rank, 1, true
		}
		if sim, ok := k.tokens.jaccardAtLeast(&a.tokens, DedupJaccard); ok {
			return a.rank, sim, true
		}
	}
	return 0, 0, false
}

// tokenSet is a set of token hashes in an open-addressing table, so that
// intersections cost one probe per token and nothing needs sorting.
type tokenSet struct {
	keys  []uint64
	table []uint64
}

func newTokenSet(hashes []uint64) tokenSet {
	size := 16
	for size < 2*len(hashes) {
		size <<= 1
	}
	s := tokenSet{keys: make([]uint64, 0, len(hashes)), table: make([]uint64, size)}
	for _, h := range hashes {
		if h == 0 {
			h = 1
		}
		if s.insert(h) {
			s.keys = append(s.keys, h)
		}
	}
	return s
}

// slot is where h (never 0) is in the table, or the empty slot where it
// would go.
func (s *tokenSet) slot(h uint64) uint64 {
	mask := uint64(len(s.table) - 1)
	i := h & mask
	for s.table[i] != 0 && s.table[i] != h {
		i = (i + 1) & mask
	}
	return i
}

// insert adds h, reporting false when it was there already.
func (s *tokenSet) insert(h uint64) bool {
	i := s.slot(h)
	if s.table[i] == h {
		return false
	}
	s.table[i] = h
	return true
}

// has reports whether h is in the set.
func (s *tokenSet) has(h uint64) bool { return s.table[s.slot(h)] == h }

// jaccardAtLeast computes the Jaccard similarity only when the set sizes
// allow reaching min (|A∩B|/|A∪B| <= min(|A|,|B|)/max(|A|,|B|)).
func (s *tokenSet) jaccardAtLeast(o *tokenSet, min float64) (float64, bool) {
	small, large := s, o
	if len(small.keys) > len(large.keys) {
		small, large = large, small
	}
	if len(large.keys) == 0 {
		return 1, true
	}
	if float64(len(small.keys))/float64(len(large.keys)) < min {
		return 0, false
	}
	inter := 0
	for _, h := range small.keys {
		if large.has(h) {
			inter++
		}
	}
	sim := float64(inter) / float64(len(small.keys)+len(large.keys)-inter)
	return sim, sim >= min
}

// TokenSet returns the sorted, distinct hashes of the lowercase word tokens
// (runs of letters and digits) of text.
func TokenSet(text string) []uint64 {
	out := tokenHashes(text)
	slices.Sort(out)
	return slices.Compact(out)
}

// tokenHashes returns the FNV-1a hashes of the lowercase word tokens (runs
// of letters and digits) of text, in order, with repeats.
func tokenHashes(text string) []uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	out := make([]uint64, 0, len(text)/5+1)
	h, inTok := uint64(offset), false
	flush := func() {
		if inTok {
			out = append(out, h)
		}
		h, inTok = offset, false
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				flush()
				continue
			}
			h = (h ^ uint64(c)) * prime
			inTok = true
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
		for _, b := range buf[:n] {
			h = (h ^ uint64(b)) * prime
		}
		inTok = true
	}
	flush()
	return out
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
