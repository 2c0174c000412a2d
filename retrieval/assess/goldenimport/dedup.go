package goldenimport

import (
	"math/bits"
	"strings"
	"unicode"

	"ragscope/internal/editdist"
)

// NearDivisor says how different two questions may be and still be near
// duplicates: an edit distance of at most the longer normalised text's
// length in runes divided by it (rounded down), a tenth, and each word
// that differs a typo of the other's (see typos). So "How do I instal
// ROS on Ubuntu" duplicates "how do I install ROS on ubuntu?", while
// "How do I test it" and "How do I tune it" stay two questions, and
// questions under 10 characters must normalise to the same text.
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

// typos reports whether the words of a and b differ only by typos: the
// words one has and the other lacks pair up, in order, each within one
// edit of its pair (two for words of 8 runes or more).
func typos(a, b []string) bool {
	ua, ub := unmatched(a, b), unmatched(b, a)
	if len(ua) != len(ub) {
		return false
	}
	for i, w := range ua {
		tol := 1
		if len([]rune(w)) >= 8 || len([]rune(ub[i])) >= 8 {
			tol = 2
		}
		if !editdist.Within(w, ub[i], tol) {
			return false
		}
	}
	return true
}

// unmatched is the words of a that b does not have (as a multiset).
func unmatched(a, b []string) []string {
	have := map[string]int{}
	for _, w := range b {
		have[w]++
	}
	var out []string
	for _, w := range a {
		if have[w] > 0 {
			have[w]--
			continue
		}
		out = append(out, w)
	}
	return out
}

// numbers is the numbers of a normalised text, in order: questions that
// differ in one ("chapter 3" and "chapter 4", "ROS 1" and "ROS 2") are
// different questions however few edits apart.
func numbers(norm string) string {
	var b strings.Builder
	in := false
	for _, r := range norm {
		d := unicode.IsDigit(r)
		if d {
			b.WriteRune(r)
		} else if in {
			b.WriteByte(' ')
		}
		in = d
	}
	return b.String()
}
