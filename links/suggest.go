package links

import (
	"strings"
	"unicode"

	"ragscope/internal/editdist"
	"ragscope/internal/lazyre"
)

var dupSuffix = lazyre.New(`^(.+)-\d+$`)

// closest returns the candidate most like target: the smallest edit
// distance relative to length, with shared words (split on - _ / .) as a
// bonus so "ros2-nodes" finds "nodes-in-ros2". ok is false when there are
// no candidates or none shares anything with target.
func closest(target string, candidates []string) (best string, ok bool) {
	bestScore := 2.0
	tw := words(target)
	for _, c := range candidates {
		if c == "" {
			continue
		}
		d := float64(editdist.Levenshtein(target, c))
		n := float64(max(runeCount(target), runeCount(c)))
		score := d/n - 0.5*jaccard(tw, words(c))
		if score < bestScore || (score == bestScore && c < best) {
			best, bestScore = c, score
		}
	}
	// A score near 1 means the strings share almost nothing.
	return best, best != "" && bestScore < 0.9
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out[w] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func runeCount(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

// closestRoute returns the route most like target: routes in the same
// folder are preferred, then the last segments are compared as closest
// does (a segment that starts with the other's, "topics" and
// "topics-and-messages", counts extra).
func closestRoute(target string, routes []string) (best string, ok bool) {
	tdir, tseg := splitRoute(target)
	bestScore := 10.0
	for _, r := range routes {
		if r == target {
			continue
		}
		dir, seg := splitRoute(r)
		score := segScore(tseg, seg)
		if dir != tdir {
			score += 0.5 * float64(editdist.Levenshtein(dir, tdir)) / float64(max(runeCount(dir), runeCount(tdir), 1))
			score += 0.25
		}
		if score < bestScore || (score == bestScore && r < best) {
			best, bestScore = r, score
		}
	}
	return best, best != "" && bestScore < 1.0
}

func splitRoute(r string) (dir, seg string) {
	r = trimSlash(r)
	i := strings.LastIndex(r, "/")
	if i < 0 {
		return "", r
	}
	return r[:i], r[i+1:]
}

func segScore(a, b string) float64 {
	n := max(runeCount(a), runeCount(b), 1)
	s := float64(editdist.Levenshtein(a, b))/float64(n) - 0.5*jaccard(words(a), words(b))
	if a != "" && b != "" && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a)) {
		s -= 0.2
	}
	return s
}
