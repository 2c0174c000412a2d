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
