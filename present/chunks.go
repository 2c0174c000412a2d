package present

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/termsafe"
)

// The chunk audit's text, shared by `ragscope chunks` and the explorer's
// Chunks view: both print the same sentences, table,
// histogram and lists from one chunkaudit.Report.

// WriteChunkSizes prints the audit's chunk count and model, the token and
// character percentiles, the histogram of tokens per chunk and the
// per-module sizes.
func WriteChunkSizes(w io.Writer, r *chunkaudit.Report) {
	lim := "input limit not known"
	switch {
	case r.Limit.Known && r.Limit.Tokens == 0:
		lim = "reads whole chunks"
	case r.Limit.Known:
		lim = fmt.Sprintf("input limit %d tokens", r.Limit.Tokens)
	}
	fmt.Fprintf(w, "Chunks: %d · model %s (%s)\n", r.Chunks, termsafe.Line(orText(r.Limit.Model, "unknown")), lim)
	fmt.Fprintf(w, "Tokens %s\n", r.Tokenizer)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-8s %6s %6s %6s %6s %6s %8s\n", "Size", "min", "p50", "p90", "p99", "max", "mean")
	for _, d := range []struct {
		name string
		d    chunkaudit.Dist
	}{{"tokens", r.Tokens}, {"chars", r.Chars}} {
		fmt.Fprintf(w, "%-8s %6d %6d %6d %6d %6d %8.1f\n", d.name, d.d.Min, d.d.P50, d.d.P90, d.d.P99, d.d.Max, d.d.Mean)
	}
	if len(r.Histogram) > 0 {
		fmt.Fprintln(w, "\nTokens per chunk:")
		most := 0
		for _, b := range r.Histogram {
			most = max(most, b.Chunks)
		}
		for _, b := range r.Histogram {
			span := fmt.Sprintf("%d–%d", b.From, b.To-1)
			if b.To == 0 {
				span = fmt.Sprintf("%d+", b.From)
			} else if b.To-1 == b.From {
				span = fmt.Sprint(b.From)
			}
			n := 0
			if most > 0 {
				n = (b.Chunks*30 + most - 1) / most
			}
			mark := ""
			if r.Limit.Tokens > 0 && b.To > r.Limit.Tokens {
				mark = "  over the limit"
				if b.From < r.Limit.Tokens {
					mark = "  partly over the limit"
				}
			}
			fmt.Fprintf(w, "  %10s %-30s %6d%s\n", span, strings.Repeat("#", n), b.Chunks, mark)
		}
	}
	if len(r.Modules) > 1 || (len(r.Modules) == 1 && r.Modules[0].Module != "") {
		fmt.Fprintln(w, "\nModules (tokens):")
		for _, m := range r.Modules {
			fmt.Fprintf(w, "  %-28s %5d %-6s  p50 %5d  p90 %5d  max %5d", termsafe.Line(orText(m.Module, "(none)")), m.Chunks, Plural(m.Chunks, "chunk", "chunks"), m.Tokens.P50, m.Tokens.P90, m.Tokens.Max)
			if m.OverLimit > 0 {
				fmt.Fprintf(w, "  %d over the limit", m.OverLimit)
			}
			fmt.Fprintln(w)
		}
	}
}

// WriteChunkLists prints the audit's findings as lists: chunks over the
// model's input with their unseen share, tiny, empty, duplicate and
// near-duplicate pairs, pages, and the site's coverage. maxList bounds
// each list (0: all); more is the hint after a cut list, e.g. "--json for
// all".
func WriteChunkLists(w io.Writer, r *chunkaudit.Report, maxList int, more string) {
	list := func(title string, n int, each func(i int)) {
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s (%d):\n", title, n)
		shown := n
		if maxList > 0 {
			shown = min(n, maxList)
		}
		for i := range shown {
			each(i)
		}
		if shown < n {
			fmt.Fprintf(w, "  … and %d more (%s)\n", n-shown, more)
		}
	}
	o := r.OverLimit
	list("Over the model's input", len(o.List), func(i int) {
		c := o.List[i]
		fmt.Fprintf(w, "  %s  %d tokens, %d unseen (%s)\n", ChunkLabel(c.ChunkRef), c.Tokens, c.Unseen, chunkaudit.Percent(c.UnseenPercent))
	})
	list("Tiny", len(r.Tiny), func(i int) {
		c := r.Tiny[i]
		fmt.Fprintf(w, "  %s  %d %s, %s\n    %s\n", ChunkLabel(c.ChunkRef), c.Tokens, Plural(c.Tokens, "token", "tokens"), tinyClass(r, c.Class, c.ByChunker), quoteStart(c.Start))
	})
	list("Empty or missing text", len(r.Empty), func(i int) { fmt.Fprintf(w, "  %s\n", ChunkLabel(r.Empty[i])) })
	list("Duplicates (identical text)", len(r.Duplicates), func(i int) {
		p := r.Duplicates[i]
		fmt.Fprintf(w, "  %s\n    = %s\n    %s%s\n", ChunkLabel(p.Second), ChunkLabel(p.First), classPrefix(r, p.Class), quoteStart(p.Start))
	})
	list("Near-duplicates", len(r.NearDuplicates), func(i int) {
		p := r.NearDuplicates[i]
		fmt.Fprintf(w, "  %s\n    ≈ %s  (similarity ≈ %.2f)\n", ChunkLabel(p.Second), ChunkLabel(p.First), p.Similarity)
	})
	list("Pages", len(r.Pages), func(i int) {
		p := r.Pages[i]
		fmt.Fprintf(w, "  %-50s %4d %-6s %6d tokens, max %5d", termsafe.Line(p.Page), p.Chunks, Plural(p.Chunks, "chunk", "chunks"), p.Tokens, p.MaxTokens)
		if p.OverLimit > 0 {
			fmt.Fprintf(w, ", %d over", p.OverLimit)
		}
		fmt.Fprintln(w)
	})
	if c := r.Coverage; c != nil {
		fmt.Fprintf(w, "\nSite: %d pages, %d with no chunk, %d headings with no chunk on pages that have chunks\n", c.Pages, len(c.PagesWithoutChunks), len(c.HeadingsWithoutChunks))
		list("Pages with no chunk", len(c.PagesWithoutChunks), func(i int) {
			p := c.PagesWithoutChunks[i]
			fmt.Fprintf(w, "  %s  (%s)\n", termsafe.Line(p.Route), termsafe.Line(p.Source))
		})
		list("Headings with no chunk", len(c.HeadingsWithoutChunks), func(i int) {
			h := c.HeadingsWithoutChunks[i]
			fmt.Fprintf(w, "  %s#%s  %q\n", termsafe.Line(h.Route), termsafe.Line(h.Anchor), termsafe.Line(h.Heading))
		})
	}
}

// tinyClass names a tiny chunk's class and its maker: "heading only (made
// by ragscope's chunker)", "short section (the book's)".
func tinyClass(r *chunkaudit.Report, class string, byChunker bool) string {
	if class == "" {
		return "tiny"
	}
	if !byChunker {
		return class + " (the book's)"
	}
	if r.Chunker != "" {
		return class + " (made by " + r.Chunker + "'s chunker)"
	}
	return class + " (made by the chunker)"
}

// classPrefix is a duplicate's class and maker followed by ": ", or "".
func classPrefix(r *chunkaudit.Report, class string) string {
	if class == "" {
		return ""
	}
	return tinyClass(r, class, chunkaudit.ByChunker(class)) + ": "
}

// quoteStart quotes the start of a chunk's text, sanitised.
func quoteStart(s string) string { return strconv.Quote(termsafe.Line(s)) }

// WriteChunkSummary prints the audit's summary sentences, the over-limit
// one first (chunkaudit's Summary).
func WriteChunkSummary(w io.Writer, r *chunkaudit.Report) {
	fmt.Fprintln(w, "Summary:")
	for _, s := range r.Summary {
		fmt.Fprintf(w, "  %s.\n", termsafe.Line(s))
	}
	if len(r.Summary) == 1 && r.Limit.Known {
		fmt.Fprintln(w, "  No tiny, empty or duplicate chunks.")
	}
}

// ChunkLabel names a chunk: page § section [#index] (id), sanitised.
func ChunkLabel(c chunkaudit.ChunkRef) string {
	s := c.Page
	if c.Section != "" {
		s += " § " + c.Section
	}
	if c.Index != nil {
		s += fmt.Sprintf(" [%d]", *c.Index)
	}
	return termsafe.Line(s + " (" + c.ID + ")")
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
