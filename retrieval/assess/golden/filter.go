package golden

import (
	"slices"
	"strings"
	"unicode"

	"ragscope/internal/textnorm"
)

// NearDuplicateJaccard is the share of shared words (Jaccard similarity
// of their content words: no question or stop words, plurals folded) at
// or above which a question is a near-duplicate of an earlier one. Two
// questions that differ in one word are often different questions ("the
// left arm", "the right arm"; "joint 1", "joint 2"), so it is high: the
// same words in another order, or one more word in a long question.
const NearDuplicateJaccard = 0.8

// isAskWord reports the words that make a heading a question without
// adding anything of the reader's ("What is Quality of Service?").
func isAskWord(w string) bool {
	switch w {
	case "what", "is", "are", "was", "how", "why", "does", "do", "the", "a", "an", "of", "in",
		"about", "explain", "describe", "define", "mean", "means", "meant", "by", "tell", "me", "s":
		return true
	}
	return false
}

// isStopWord reports the small words two wordings of one question differ
// in ("talk to each other", "talk with each other"); they and the question
// words (isAskWord) are left out when questions are compared.
func isStopWord(w string) bool {
	switch w {
	case "to", "with", "for", "on", "at", "from", "into", "and", "or", "i", "my", "we", "our", "you",
		"your", "it", "its", "this", "that", "these", "those", "can", "could", "should", "would", "will",
		"which", "when", "where", "who", "one", "another", "each", "other":
		return true
	}
	return false
}

// copiesHeading reports whether question q restates heading h: it holds
// the heading's words (two or more) in a row, or its words are the
// heading's but for question words.
func copiesHeading(q, h string) bool {
	qw, hw := textnorm.Words(q), textnorm.Words(h)
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
	return slices.DeleteFunc(slices.Clone(ws), func(w string) bool { return isAskWord(w) })
}

// contentWords are s's distinct words but question and stop words,
// plurals folded ("joints": "joint"), sorted.
func contentWords(s string) []string {
	ws := slices.DeleteFunc(stripAsk(textnorm.Words(s)), func(w string) bool { return isStopWord(w) })
	for i, w := range ws {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			ws[i] = w[:len(w)-1]
		}
	}
	slices.Sort(ws)
	return slices.Compact(ws)
}

// nearDuplicate reports whether the question of content words qc says
// nearly what one of seen (content words too: contentWords) says: their
// Jaccard similarity is at least NearDuplicateJaccard.
func nearDuplicate(seen [][]string, qc []string) bool {
	for _, sc := range seen {
		shared := 0
		for _, w := range qc {
			if _, ok := slices.BinarySearch(sc, w); ok {
				shared++
			}
		}
		union := len(qc) + len(sc) - shared
		if union == 0 || float64(shared)/float64(union) >= NearDuplicateJaccard {
			return true
		}
	}
	return false
}

// MinQuestionWords is the fewest words (holding a letter) a question
// has: "1.", "ROS 2?" and "Gazebo setup?" are not questions a reader asks.
const MinQuestionWords = 3

// notAQuestion reports text that is no reader's question: fewer than
// MinQuestionWords words that hold a letter, or code rather than words:
// half or more of its space-separated tokens look like code (codeToken),
// or some do and it neither ends in '?' nor starts with a question word
// ("def talker(): pass", "ros2 run demo_nodes_cpp talker"). A question
// that names code ("What does rclpy.init() set up?") is one.
func notAQuestion(q string) bool {
	words := textnorm.Words(q)
	n := 0
	for _, w := range words {
		if strings.ContainsFunc(w, unicode.IsLetter) {
			n++
		}
	}
	if n < MinQuestionWords {
		return true
	}
	toks := strings.Fields(q)
	code := 0
	for _, t := range toks {
		if codeToken(t) {
			code++
		}
	}
	if 2*code >= len(toks) {
		return true
	}
	asks := strings.HasSuffix(q, "?") || isAskWord(words[0]) || isCommandWord(words[0])
	return code > 0 && !asks
}

// isCommandWord reports the words a request put as a command starts with
// ("Compare …", "List …").
func isCommandWord(w string) bool {
	switch w {
	case "which", "where", "when", "who", "whom", "whose", "can", "could", "should", "would", "will", "list", "show",
		"compare", "give", "name", "outline", "summarise", "summarize", "walk", "help", "in", "if", "under":
		return true
	}
	return false
}

// codeToken reports a token of code rather than prose: it holds a
// bracket, brace, semicolon, operator or backtick, or joins names with
// '.', '_', "::" or "->" ("rclpy.init", "max_speed", "std::string").
func codeToken(t string) bool {
	if strings.HasPrefix(t, "-") && len(t) > 1 { // a command-line flag
		return true
	}
	t = strings.TrimRight(t, "?!.,:")
	if t == "" {
		return false
	}
	if strings.ContainsAny(t, "(){}[];=<>`$\\|&*+^~#@") {
		return true
	}
	if strings.Contains(t, "::") || strings.Contains(t, "->") {
		return true
	}
	for _, sep := range []string{".", "_", "/"} {
		if i := strings.Index(t, sep); i > 0 && i < len(t)-1 {
			return true
		}
	}
	return false
}
