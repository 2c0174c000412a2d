// Package present is the text ragscope shows for retrieval values, the
// same in the CLI and the explorer: a hit's "title - section" and place,
// previews, counts, on/off, filters, token estimates and timings. Text
// from the collection comes out sanitised for the terminal.
package present

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"ragscope/retrieval"
	"ragscope/termsafe"
)

// Untitled stands for a chunk with neither a title nor a doc path.
const Untitled = "(untitled)"

// Title is "title - section" of a chunk: the doc path stands in for a
// missing title, and a section equal to the title is not repeated.
func Title(c *retrieval.Chunk) string {
	title := c.Title
	if title == "" {
		title = c.DocPath
	}
	if title == "" {
		title = Untitled
	}
	if c.Section != "" && c.Section != title {
		title += " - " + c.Section
	}
	return termsafe.Line(title)
}

// Place is "module / chapter · chunk i/n" of a chunk (1-based), with
// whichever parts it has; "" when it has none.
func Place(c *retrieval.Chunk) string {
	var parts []string
	if c.Module != "" {
		parts = append(parts, c.Module)
	}
	if c.Chapter != "" {
		parts = append(parts, c.Chapter)
	}
	s := strings.Join(parts, " / ")
	if i, ok := c.Index(); ok {
		chunk := "chunk " + strconv.Itoa(i+1)
		if c.TotalChunks != nil {
			chunk += "/" + strconv.Itoa(*c.TotalChunks)
		}
		if s != "" {
			s += " · "
		}
		s += chunk
	}
	return termsafe.Line(s)
}

// Preview is the first n characters of text on one line, with an ellipsis
// when it was cut.
func Preview(text string, n int) string {
	s, r := tooLong(text, n)
	if r == nil {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// tooLong is text on one line and, when that is longer than n characters,
// its runes to cut (nil when it fits; "" and nil for n <= 0).
func tooLong(text string, n int) (string, []rune) {
	if n <= 0 {
		return "", nil
	}
	s := termsafe.Line(text)
	if utf8.RuneCountInString(s) <= n {
		return s, nil
	}
	return s, []rune(s)
}

// Plural picks the word for n.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n and the word for it, with thousands separators: "1 result",
// "1,024 results".
func Count(n int, one, many string) string {
	return Int(n) + " " + Plural(n, one, many)
}

// Int formats n with thousands separators.
func Int(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// OnOff prints a flag.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Filters is the active filters on one line, or "none".
func Filters(f retrieval.Filters) string {
	if f.IsEmpty() {
		return "none"
	}
	return termsafe.Line(f.String())
}

// Score formats a score with prec decimals.
func Score(s float64, prec int) string {
	return strconv.FormatFloat(s, 'f', prec, 64)
}

// Tokens estimates the tokens of text for an LLM: about four characters a
// token for English prose, rounded up.
func Tokens(text string) int {
	return (utf8.RuneCountInString(text) + 3) / 4
}

// Duration prints d in milliseconds with one decimal: "12.3 ms".
func Duration(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
}

// Timings lists the stages of a retrieval: the index load when there was
// one, embed, search, the rerank call when there was one, post-processing
// and the total; a selected-text query has no search.
func Timings(t retrieval.Timings, mode retrieval.Mode) string {
	if mode == retrieval.ModeSelectedText {
		return "no search · total " + Duration(t.Total)
	}
	load := ""
	if t.Load > 0 {
		load = "load " + Duration(t.Load) + " · "
	}
	rerank := ""
	if t.Rerank > 0 {
		rerank = " · rerank " + Duration(t.Rerank)
	}
	return load + "embed " + Duration(t.Embed) + " · search " + Duration(t.Search) + rerank +
		" · post " + Duration(t.Post) + " · total " + Duration(t.Total)
}

// FirstStage names the ranking a rerank reorders (retrieval.Params.Ranking):
// "vector" for vector similarity, "hybrid", or "BM25".
func FirstStage(ranking string) string {
	switch ranking {
	case "hybrid":
		return "hybrid"
	case "bm25":
		return "BM25"
	}
	return "vector"
}

// DropReason says why a hit was left out, as the command line and the
// explorer both say it: "duplicate of #2", "relevance 0.120 below the
// rerank threshold", or "below 0.35" (the score threshold).
func DropReason(d retrieval.DroppedHit, threshold float64) string {
	switch {
	case d.Reason == retrieval.ReasonDuplicate:
		return "duplicate of #" + strconv.Itoa(d.DuplicateOf)
	case d.Reason == retrieval.ReasonBelowRerankThreshold && d.RerankScore != nil:
		return "relevance " + Score(*d.RerankScore, 3) + " below the rerank threshold"
	}
	return "below " + Score(threshold, 2)
}

// gradeWords name the judge's grades on TREC's UMBRELA scale.
var gradeWords = [...]string{"unrelated", "related", "partly answers", "answers"}

// GradeWord names a judge's relevance grade (0 unrelated, 1 related,
// 2 partly answers, 3 answers); "?" for any other number.
func GradeWord(g int) string {
	if g < 0 || g >= len(gradeWords) {
		return "?"
	}
	return gradeWords[g]
}
