package golden

import (
	"slices"
	"strings"
	"unicode"

	"ragscope/internal/editdist"
)

// NearDuplicateSimilarity is the similarity at or above which a question
// is a near-duplicate of an earlier one: 1 - edit distance / length of
// the longer, over their words lower-cased without punctuation. Two
// questions that differ in one word are often different questions ("the
// left arm" and "the right arm"), so it is high: a typo, a plural.
const NearDuplicateSimilarity = 0.95

// words are s's words, lower-cased, punctuation dropped.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// askWords are the words that make a heading a question without adding
// anything of the reader's ("What is Quality of Service?").
var askWords = map[string]bool{
	"what": true, "is": true, "are": true, "was": true, "how": true, "why": true, "does": true, "do": true,
	"the": true, "a": true, "an": true, "of": true, "in": true, "about": true, "explain": true, "describe": true,
	"define": true, "mean": true, "means": true, "meant": true, "by": true, "tell": true, "me": true, "s": true,
}

// stopWords are the small words two wordings of one question differ in
// ("talk to each other", "talk with each other"); with askWords they are
// left out when questions are compared.
var stopWords = map[string]bool{
	"to": true, "with": true, "for": true, "on": true, "at": true, "from": true, "into": true, "and": true, "or": true,
	"i": true, "my": true, "we": true, "our": true, "you": true, "your": true, "it": true, "its": true, "this": true,
	"that": true, "these": true, "those": true, "can": true, "could": true, "should": true, "would": true, "will": true,
	"which": true, "when": true, "where": true, "who": true, "one": true, "another": true, "each": true, "other": true,
}

// copiesHeading reports whether question q restates heading h: it holds
// the heading's words (two or more) in a row, or its words are the
// heading's but for question words.
func copiesHeading(q, h string) bool {
	qw, hw := words(q), words(h)
	if len(hw) == 0 {
		return false
	}
	if len(hw) >= 2 {
		for i := 0; i+len(hw) <= len(qw); i++ {
			if slices.Equal(qw[i:i+len(hw)], hw) {
				return true
			}
		}
	}
	qs, hs := stripAsk(qw), stripAsk(hw)
	return len(hs) > 0 && slices.Equal(qs, hs)
}

// stripAsk is ws without question words.
func stripAsk(ws []string) []string {
	return slices.DeleteFunc(slices.Clone(ws), func(w string) bool { return askWords[w] })
}

// contentWords are s's words but question and stop words, sorted.
func contentWords(s string) []string {
	ws := slices.DeleteFunc(stripAsk(words(s)), func(w string) bool { return stopWords[w] })
	slices.Sort(ws)
	return ws
}

// nearDuplicate reports whether q says nearly what one of seen says: the
// same words but for question words, in any order, or a similarity of at
// least NearDuplicateSimilarity.
func nearDuplicate(seen []string, q string) bool {
	n := strings.Join(words(q), " ")
	nc := contentWords(q)
	for _, s := range seen {
		m := strings.Join(words(s), " ")
		if n == m || slices.Equal(nc, contentWords(s)) {
			return true
		}
		longer := max(len([]rune(n)), len([]rune(m)))
		// The edit distance is at least the difference in length: skip
		// pairs that cannot reach the similarity.
		if d := abs(len([]rune(n)) - len([]rune(m))); longer == 0 || float64(d)/float64(longer) > 1-NearDuplicateSimilarity {
			continue
		}
		if 1-float64(editdist.Levenshtein(n, m))/float64(longer) >= NearDuplicateSimilarity {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
