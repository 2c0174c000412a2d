// Package explain takes a retrieval score apart in the book's own words:
// for a question and a chunk (a hit, or an expected source the query
// missed), the question's words marked in the chunk's text, in its
// title or absent (with the chunk's words nearest in meaning to an absent
// one), the store's score taken apart (BM25 per term and the title match
// on a local index; each question word's share of a dense score by
// leave-one-out), the winner beside the expected, and suggestions drawn
// from the measured facts. A what-if scores an edited or new chunk as the
// collection's own chunks are scored and places it among the current
// candidates. It reads what the pipeline recorded and never writes to a
// collection or an index.
package explain

import (
	"strings"
	"unicode"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
)

// Term is one of the question's content words against a chunk.
type Term struct {
	// Term is the word as the lexical search indexes it.
	Term string `json:"term"`
	// InText and InTitle tell where the chunk has it: its text (Count
	// times), its page title or section heading.
	InText  bool `json:"in_text"`
	InTitle bool `json:"in_title"`
	Count   int  `json:"count"`
	// Form is the chunk's form of the word when it has another form only
	// ("joint" for "joints"): the lexical search counts exact words, so
	// such a word scores nothing.
	Form string `json:"form,omitempty"`
	// Contribution is the word's part of the score (BM25), nil when the
	// store does not score words.
	Contribution *float64 `json:"contribution"`
	// IDF, TF and LengthNorm are the BM25 parts behind Contribution.
	IDF        *float64 `json:"idf,omitempty"`
	TF         *float64 `json:"tf,omitempty"`
	LengthNorm *float64 `json:"length_norm,omitempty"`
}

// Absent reports whether the chunk lacks the word in every form.
func (t *Term) Absent() bool { return !t.InText && !t.InTitle && t.Form == "" }

// Near is a chunk word near an absent question word in meaning.
type Near struct {
	Word       string  `json:"word"`
	Similarity float64 `json:"similarity"`
}

// Missing is a question word the chunk lacks, with the chunk's words
// nearest to it by the offline embedder's word vectors.
type Missing struct {
	Term    string `json:"term"`
	Nearest []Near `json:"nearest"`
}

// nearK and nearMin bound the nearest words shown for an absent word.
const (
	nearK   = 2
	nearMin = 0.4
)

// QuestionTerms is the question's distinct content words as the lexical
// search sees them (its tokenizer and stop words), in question order.
func QuestionTerms(question string) []string { return embed.DistinctTerms(question) }

// Words marks each of the question's words in c and, for each absent
// one, the chunk's nearest words in meaning.
func Words(question string, c *retrieval.Chunk) ([]Term, []Missing, error) {
	text := embed.Terms(c.Text)
	count := map[string]int{}
	for _, t := range text {
		count[t]++
	}
	head := map[string]bool{}
	for _, t := range embed.Terms(strings.Join(append([]string{c.Title, c.Section}, c.Breadcrumb...), " ")) {
		head[t] = true
	}
	byStem := map[string]string{}
	var among []string
	// The nearest words to an absent word are the chunk's other words,
	// never the question's own.
	seen := map[string]bool{}
	for _, q := range QuestionTerms(question) {
		seen[q] = true
	}
	for _, t := range append(text, keys(head)...) {
		if _, ok := byStem[stem(t)]; !ok {
			byStem[stem(t)] = t
		}
		if !seen[t] {
			seen[t] = true
			among = append(among, t)
		}
	}
	var terms []Term
	var missing []Missing
	for _, q := range QuestionTerms(question) {
		t := Term{Term: q, Count: count[q], InText: count[q] > 0, InTitle: head[q]}
		if !t.InText && !t.InTitle {
			if f, ok := byStem[stem(q)]; ok && f != q {
				t.Form = f
			}
		}
		terms = append(terms, t)
		if t.Absent() {
			near, err := embed.NearestAmong(q, among, nearK, nearMin)
			if err != nil {
				return nil, nil, err
			}
			m := Missing{Term: q, Nearest: []Near{}}
			for _, n := range near {
				m.Nearest = append(m.Nearest, Near{Word: n.Word, Similarity: round2(n.Cos)})
			}
			missing = append(missing, m)
		}
	}
	return terms, missing, nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// stem is a light English suffix fold for telling word forms apart
// ("joints", "joint"; "planning", "plan" is left alone): only explanations
// use it, to say the chunk has another form of a word.
func stem(w string) string {
	if len(w) <= 3 || !isLetters(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		return w[:len(w)-2]
	}
	return w
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }
