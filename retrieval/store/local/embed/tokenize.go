package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokenRunes caps a token's length; longer runs of letters (base64 blobs,
// hashes) are cut so that one token cannot produce unbounded n-grams.
const maxTokenRunes = 40

// token is one word of a text. Main is the lowercased word; alts are other
// spellings that carry the same meaning ("ros" for "ros2", "point" and
// "cloud" for "PointCloud"), used when main has no word vector and as extra
// word features.
type token struct {
	main string
	alts []string
}

// tokenize lowercases text and splits it into runs of letters and digits.
// A word followed by a lone digit is joined ("ROS 2" -> "ros2"), a word that
// ends in digits also yields its letters ("nav2" -> "nav"), and camelCase
// words also yield their parts. Stopwords, single letters and lone digits
// are dropped.
func tokenize(text string) []token {
	raw := splitRaw(text)
	out := make([]token, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		w := raw[i]
		lower := strings.ToLower(w)
		// "ROS 2", "RT-2", "Isaac Sim 4": join a word and a following lone digit.
		if i+1 < len(raw) && isLetters(lower) && !isStopword(lower) && len(raw[i+1]) == 1 && isDigit(raw[i+1][0]) {
			joined := lower + raw[i+1]
			out = append(out, token{main: joined, alts: []string{lower}})
			i++
			continue
		}
		if utf8.RuneCountInString(lower) < 2 || isStopword(lower) {
			continue
		}
		t := token{main: lower}
		if p := letterPrefix(lower); p != "" && !isStopword(p) {
			t.alts = append(t.alts, p)
		}
		for _, part := range camelParts(w) {
			if part != lower && !isStopword(part) {
				t.alts = append(t.alts, part)
			}
		}
		out = append(out, t)
	}
	return out
}

// splitRaw returns the maximal runs of letters and digits in text, keeping
// their case. Invalid UTF-8 acts as a separator.
func splitRaw(text string) []string {
	var out []string
	start, runes := -1, 0
	for i, r := range text {
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if start < 0 {
				start, runes = i, 0
			}
			runes++
			if runes == maxTokenRunes {
				out = append(out, text[start:i+utf8.RuneLen(r)])
				start = -1
			}
			continue
		}
		if start >= 0 {
			out = append(out, text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLetters(s string) bool {
	if len(s) < 2 {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// letterPrefix returns the letters of a word made of letters then digits
// ("nav2" -> "nav"), or "".
func letterPrefix(s string) string {
	i := len(s)
	for i > 0 && isDigit(s[i-1]) {
		i--
	}
	if i == len(s) || i < 2 || !isLetters(s[:i]) {
		return ""
	}
	return s[:i]
}

// camelParts splits a camelCase or PascalCase word into lowercase parts of
// two or more letters ("PointCloud2" -> "point", "cloud"). A word with no
// lower-to-upper change gives nil.
func camelParts(w string) []string {
	var parts []string
	start := 0
	prevLower := false
	split := false
	for i, r := range w {
		if unicode.IsUpper(r) && prevLower {
			parts = appendPart(parts, w[start:i])
			start = i
			split = true
		}
		prevLower = unicode.IsLower(r)
	}
	if !split {
		return nil
	}
	return appendPart(parts, w[start:])
}

func appendPart(parts []string, p string) []string {
	p = strings.ToLower(strings.TrimRightFunc(p, unicode.IsDigit))
	if utf8.RuneCountInString(p) < 2 {
		return parts
	}
	return append(parts, p)
}

// isStopword reports whether w is a frequent English function word, a
// question word or web boilerplate, none of which says anything about a
// passage's topic.
func isStopword(w string) bool {
	switch w {
	case "a", "about", "above", "after", "again", "against", "all", "also",
		"am", "an", "and", "any", "are", "as", "at", "be", "because", "been",
		"before", "being", "below", "between", "both", "but", "by", "can", "could",
		"did", "do", "does", "doing", "done", "down", "during", "each", "either",
		"else", "etc", "even", "ever", "every", "few", "for", "from", "further",
		"get", "gets", "getting", "got", "had", "has", "have", "having", "he",
		"her", "here", "hers", "herself", "him", "himself", "his", "how",
		"however", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
		"let", "lets", "like", "may", "me", "might", "more", "most", "much",
		"must", "my", "myself", "no", "nor", "not", "now", "of", "off", "often",
		"on", "once", "one", "only", "or", "other", "others", "our", "ours",
		"ourselves", "out", "over", "own", "per", "please", "quite", "rather",
		"really", "same", "shall", "she", "should", "since", "so", "some", "such",
		"than", "that", "the", "their", "theirs", "them", "themselves", "then",
		"there", "these", "they", "this", "those", "through", "thus", "to", "too",
		"under", "until", "up", "upon", "us", "use", "used", "uses", "using",
		"very", "via", "was", "way", "we", "well", "were", "what", "whatever",
		"when", "where", "whether", "which", "while", "who", "whom", "whose",
		"why", "will", "with", "within", "without", "would", "yet", "you", "your",
		"yours", "yourself", "yourselves", "don", "doesn", "didn", "isn", "aren",
		"wasn", "weren", "won", "wouldn", "shouldn", "couldn", "ll", "ve", "re",
		"im", "ive", "id", "youre", "thats", "whats", "http", "https", "www",
		"com", "org", "html", "md", "mdx":
		return true
	}
	return false
}
