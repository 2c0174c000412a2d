package embed

// Terms returns the index terms of text for lexical scoring (the local
// BM25 reranker): the same tokenizer the offline embedder uses, so "ROS 2"
// and "ros2" match, with each token's main form followed by its other
// spellings ("nav2" gives "nav2" and "nav"). Stopwords are dropped.
func Terms(text string) []string {
	toks := tokenize(text)
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		out = append(out, t.main)
		out = append(out, t.alts...)
	}
	return out
}

// DistinctTerms is text's distinct index terms (Terms) in the order they
// first occur: what a score breakdown lists a question's words by.
func DistinctTerms(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range Terms(text) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
