// Package detail is the explorer's detail pane: the selected hit's
// metadata (rank, score, each arm of a fused search, citation, link
// state, rerank movement, score parts, judge verdict, explanation) and
// its text rendered as Markdown, searchable with /.
package detail
