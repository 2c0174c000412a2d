package editdist

// Within reports whether the edit distance between a and b (Levenshtein,
// in runes) is at most limit. It fills only the diagonal band of width
// 2·limit+1 and stops as soon as every cell of a row exceeds limit, so two
// strings that differ early cost a few rows, not len(a)·len(b).
func Within(a, b string, limit int) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	if limit < 0 || len(ra)-len(rb) > limit {
		return false
	}
	if len(rb) == 0 {
		return len(ra) <= limit
	}
	const inf = int(^uint(0) >> 2)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
		if j > limit {
			prev[j] = inf
		}
	}
	for i := 1; i <= len(ra); i++ {
		lo, hi := max(1, i-limit), min(len(rb), i+limit)
		for j := range cur {
			cur[j] = inf
		}
		if i <= limit {
			cur[0] = i
		}
		best := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return false
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)] <= limit
}
