package goldenimport

import (
	"math/bits"
	"strings"
	"unicode"

	"ragscope/internal/editdist"
)

// NearDivisor says how different two questions may be and still be near
// duplicates: an edit distance of at most the longer normalised text's
// length in runes divided by it (rounded down), a tenth, so "How do I
// instal ROS2?" duplicates "how do I install ROS 2" while questions under
// 10 characters must normalise to the same text.
const NearDivisor = 10

// Reason is why a question was dropped.
type Reason string

// Drop reasons.
const (
	// ReasonExact: the same text as an earlier question.
	ReasonExact Reason = "exact duplicate"
	// ReasonNear: a near duplicate of an earlier question.
	ReasonNear Reason = "near duplicate"
)

// Drop is a question left out and the earlier question it repeats.
type Drop struct {
	Question Question
	Reason   Reason
	Of       Question
}

// Normalize is the text near duplicates are compared on: lower case,
// every run of characters that are not letters or digits one space.
func Normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}

// signature is a 256-bit set of the hashed character bigrams of a
// normalised text. One edit changes at most 4 bigrams of the set, so two
// texts within d edits differ in at most 4·d bits: a cheap test that
// rules out almost every pair before the edit distance is computed.
type signature [4]uint64

func newSignature(rs []rune) signature {
	var s signature
	for i := 0; i+1 < len(rs); i++ {
		h := uint32(rs[i])*0x9E3779B1 ^ uint32(rs[i+1])*0x85EBCA6B
		h ^= h >> 15
		h *= 0x2C1B3C6D
		h ^= h >> 12
		b := h & 255
		s[b>>6] |= 1 << (b & 63)
	}
	return s
}

func (s signature) diff(o signature) int {
	n := 0
	for i := range s {
		n += bits.OnesCount64(s[i] ^ o[i])
	}
	return n
}

type kept struct {
	q    Question
	norm string
	sig  signature
}

// Dedup drops exact and near duplicates from qs, keeping the first of
// each group in input order, and returns the questions kept and the drops
// (each with the kept question it repeats). Exact duplicates have the
// same text; near duplicates the same normalised text (Normalize: case,
// punctuation and spacing aside), or one within a tenth (NearDivisor) of its length in edits.
func Dedup(qs []Question) ([]Question, []Drop) {
	var out []Question
	var drops []Drop
	exact := map[string]Question{}
	byNorm := map[string]Question{}
	byLen := map[int][]kept{} // kept questions by normalised length in runes
	for _, q := range qs {
		if first, ok := exact[q.Text]; ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonExact, Of: first})
			continue
		}
		exact[q.Text] = q
		norm := Normalize(q.Text)
		if first, ok := byNorm[norm]; ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonNear, Of: first})
			continue
		}
		rs := []rune(norm)
		sig := newSignature(rs)
		if first, ok := nearest(byLen, norm, len(rs), sig); ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonNear, Of: first})
			continue
		}
		byNorm[norm] = q
		byLen[len(rs)] = append(byLen[len(rs)], kept{q: q, norm: norm, sig: sig})
		out = append(out, q)
	}
	return out, drops
}

// nearest finds a kept question near enough to norm (n runes).
func nearest(byLen map[int][]kept, norm string, n int, sig signature) (Question, bool) {
	for l := n - n/NearDivisor; l <= n+n/(NearDivisor-1)+1; l++ {
		d := max(n, l) / NearDivisor
		if d == 0 || abs(l-n) > d {
			continue
		}
		for _, k := range byLen[l] {
			if sig.diff(k.sig) <= 4*d && editdist.Within(norm, k.norm, d) {
				return k.q, true
			}
		}
	}
	return Question{}, false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
