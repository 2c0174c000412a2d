package cli

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/links"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/chunkaudit"
)

type chunksFlags struct {
	json    bool
	failOn  string
	model   string
	limit   int
	tiny    int
	maxList int
}

func (a *App) newChunksCmd() *cobra.Command {
	var cf chunksFlags
	cmd := &cobra.Command{
		Use:   "chunks",
		Short: "Audit how the collection was cut: sizes, chunks over the model's input, tiny, empty and duplicate chunks, pages with no chunk",
		Long: `Read every chunk of the collection, index or docs folder (Qdrant: a scroll
of 1,000 points per call with only the payload fields the audit needs,
read-only) and report:

  - the size distribution in tokens and characters: percentiles, a
    histogram, per module;
  - chunks longer than the embedding model's input limit, and the share of
    their text the model never saw (known limits: Cohere v3 embed 512,
    OpenAI text-embedding-3-* 8191, Gemini gemini-embedding-001 2048; the
    offline embedder reads everything; --model and --limit override);
  - tiny chunks (heading only, or under --tiny tokens) and empty ones;
  - duplicates: identical text or content hash, and near-duplicates (word
    tokens' Jaccard similarity, estimated, at or above the pipeline's dedup
    threshold), with the pairs;
  - per page: chunk count and sizes; with a site (--site, or the demo's, or
    --docs inside a site) the pages with no chunk and the headings no chunk
    covers.

Tokens are estimated (no embedding provider's tokenizer ships offline for
Go): about one token per short word, more for long words, one per
punctuation mark. Every output says so.

Exit codes: 0 whatever the audit finds (a report, not a gate), 4 when a
--fail-on rule is broken, 2 missing config or a collection whose text field
is not mapped, 3 backend unreachable, 130 interrupted (no report printed).`,
		Example: `  ragscope chunks
  ragscope chunks --model embed-english-v3.0
  ragscope chunks --json | jq '.over_limit'
  ragscope chunks --fail-on 'over-limit>0,duplicates>0'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cf.limit < 0 || cf.maxList < 0 {
				return Usagef("--limit and --max-list must not be negative")
			}
			var rules []chunkaudit.Rule
			if cf.failOn != "" {
				r, err := chunkaudit.ParseRules(cf.failOn)
				if err != nil {
					return Usagef("--fail-on: %v", err)
				}
				rules = r
			}
			return a.runChunks(cmd, cf, rules)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&cf.json, "json", false, "print the report as JSON (schema "+chunkaudit.Schema+")")
	f.StringVar(&cf.failOn, "fail-on", "", "exit 4 when a rule holds, e.g. 'over-limit>0,duplicates>0' (metrics: over-limit, over-limit-percent, unseen-percent, tiny, empty, duplicates, near-duplicates, pages-without-chunks, headings-without-chunks)")
	f.StringVar(&cf.model, "model", "", "embedding model whose input limit applies (default: the configured embedder)")
	f.IntVar(&cf.limit, "limit", 0, "input limit in tokens (default: the model's, from the table of known models)")
	f.IntVar(&cf.tiny, "tiny", chunkaudit.DefaultTinyTokens, "chunks under this many tokens are tiny")
	f.IntVar(&cf.maxList, "max-list", 10, "chunks, pairs and pages listed per finding in human output (0 for all)")
	return cmd
}

func (a *App) runChunks(cmd *cobra.Command, cf chunksFlags, rules []chunkaudit.Rule) error {
	ctx := cmd.Context()
	be, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	if be.Walker == nil {
		return &ExitError{Code: ExitConfig, Err: fmt.Errorf("the %s backend cannot list its chunks, so they cannot be audited", be.Kind)}
	}
	model := cf.model
	if model == "" {
		model = be.Model()
	}
	limit := chunkaudit.LimitFor(model)
	if cf.limit > 0 {
		limit = chunkaudit.Limit{Model: model, Tokens: cf.limit, Known: true}
	}
	opts := chunkaudit.Options{Limit: limit, TinyTokens: cf.tiny}
	if cf.tiny <= 0 {
		opts.TinyTokens = -1
	}
	site, _, err := app.Site(be)
	if err != nil {
		return &ExitError{Code: ExitConfig, Err: fmt.Errorf("load site: %w", err)}
	}
	if site != nil {
		opts.Site = auditSite(site, be.Pipeline.URLs)
	}
	aud := chunkaudit.New(opts)
	bar := newBar(a.Stderr, false)
	visit := func(page []retrieval.Chunk, total int) error {
		for i := range page {
			aud.Add(&page[i])
		}
		bar.update("reading chunks", aud.Chunks(), total)
		return ctx.Err()
	}
	err = app.WalkChunks(ctx, be, visit)
	bar.clear()
	if ctx.Err() != nil {
		// Interrupted: no report, not even a partial one.
		return ctx.Err()
	}
	if err != nil {
		if app.IsMissingField(err) {
			return &ExitError{Code: ExitConfig, Err: err}
		}
		return fmt.Errorf("chunks: %w", err)
	}
	rep := aud.Report()
	out := cmd.OutOrStdout()
	if cf.json {
		if err := writeJSON(out, chunksJSON{Report: rep, Backend: backendJSON(be), Version: buildVersion()}); err != nil {
			return err
		}
	} else {
		writeChunksText(out, be, rep, cf.maxList)
	}
	if broken := rep.Broken(rules); len(broken) > 0 {
		return &ExitError{Code: ExitCheck, Err: fmt.Errorf("chunk audit failed: %s", strings.Join(broken, ", "))}
	}
	return nil
}

// chunksJSON is the JSON document of `ragscope chunks --json`.
type chunksJSON struct {
	*chunkaudit.Report
	Backend BackendJSON `json:"backend"`
	Version VersionInfo `json:"version"`
}

// auditSite turns a site model into the audit's pages and a locator that
// places a chunk by its citation URL as queries build it (or, failing
// that, by its doc path).
func auditSite(site *links.Site, urls retrieval.URLBuilder) *chunkaudit.Site {
	s := &chunkaudit.Site{}
	for _, p := range site.Pages {
		if p.Draft || p.Generated || site.PageByRoute(p.Route) != p {
			continue
		}
		sp := chunkaudit.SitePage{Route: p.Route, Source: p.Source, Title: p.Title}
		for _, h := range p.Headings {
			sp.Headings = append(sp.Headings, chunkaudit.SiteHeading{ID: h.ID, Text: h.Text, Level: h.Level, Citable: h.Level >= 2 && !h.NoAnchor && h.OwnText})
		}
		s.Pages = append(s.Pages, sp)
	}
	s.Locate = func(c *retrieval.Chunk) (string, string) {
		cit := urls.Cite(c)
		if u, err := url.Parse(cit.URL); err == nil {
			if p := site.PageByRoute(u.Path); p != nil {
				return p.Route, u.Fragment
			}
		}
		if c.DocPath != "" {
			if p := site.PageBySource(c.DocPath); p != nil {
				return p.Route, c.HeadingID
			}
		}
		return "", ""
	}
	return s
}

// writeChunksText prints the audit for people.
func writeChunksText(w io.Writer, be *app.Backend, r *chunkaudit.Report, maxList int) {
	fmt.Fprintln(w, header(be))
	lim := "input limit not known"
	switch {
	case r.Limit.Known && r.Limit.Tokens == 0:
		lim = "reads whole chunks"
	case r.Limit.Known:
		lim = fmt.Sprintf("input limit %d tokens", r.Limit.Tokens)
	}
	fmt.Fprintf(w, "Chunks: %d · model %s (%s)\n", r.Chunks, cleanLine(orText(r.Limit.Model, "unknown")), lim)
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
			fmt.Fprintf(w, "  %-28s %5d %-6s  p50 %5d  p90 %5d  max %5d", cleanLine(orText(m.Module, "(none)")), m.Chunks, present.Plural(m.Chunks, "chunk", "chunks"), m.Tokens.P50, m.Tokens.P90, m.Tokens.Max)
			if m.OverLimit > 0 {
				fmt.Fprintf(w, "  %d over the limit", m.OverLimit)
			}
			fmt.Fprintln(w)
		}
	}
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
			fmt.Fprintf(w, "  … and %d more (--max-list 0 or --json for all)\n", n-shown)
		}
	}
	o := r.OverLimit
	list("Over the model's input", len(o.List), func(i int) {
		c := o.List[i]
		fmt.Fprintf(w, "  %s  %d tokens, %d unseen (%s)\n", chunkLabel(c.ChunkRef), c.Tokens, c.Unseen, chunkaudit.Percent(c.UnseenPercent))
	})
	list("Tiny", len(r.Tiny), func(i int) {
		c := r.Tiny[i]
		fmt.Fprintf(w, "  %s  %d %s, %s\n", chunkLabel(c.ChunkRef), c.Tokens, present.Plural(c.Tokens, "token", "tokens"), c.Reason)
	})
	list("Empty or missing text", len(r.Empty), func(i int) { fmt.Fprintf(w, "  %s\n", chunkLabel(r.Empty[i])) })
	list("Duplicates (identical text)", len(r.Duplicates), func(i int) {
		p := r.Duplicates[i]
		fmt.Fprintf(w, "  %s\n    = %s\n", chunkLabel(p.Second), chunkLabel(p.First))
	})
	list("Near-duplicates", len(r.NearDuplicates), func(i int) {
		p := r.NearDuplicates[i]
		fmt.Fprintf(w, "  %s\n    ≈ %s  (similarity ≈ %.2f)\n", chunkLabel(p.Second), chunkLabel(p.First), p.Similarity)
	})
	list("Pages", len(r.Pages), func(i int) {
		p := r.Pages[i]
		fmt.Fprintf(w, "  %-50s %4d %-6s %6d tokens, max %5d", cleanLine(p.Page), p.Chunks, present.Plural(p.Chunks, "chunk", "chunks"), p.Tokens, p.MaxTokens)
		if p.OverLimit > 0 {
			fmt.Fprintf(w, ", %d over", p.OverLimit)
		}
		fmt.Fprintln(w)
	})
	if c := r.Coverage; c != nil {
		fmt.Fprintf(w, "\nSite: %d pages, %d with no chunk, %d headings with no chunk on pages that have chunks\n", c.Pages, len(c.PagesWithoutChunks), len(c.HeadingsWithoutChunks))
		list("Pages with no chunk", len(c.PagesWithoutChunks), func(i int) {
			p := c.PagesWithoutChunks[i]
			fmt.Fprintf(w, "  %s  (%s)\n", cleanLine(p.Route), cleanLine(p.Source))
		})
		list("Headings with no chunk", len(c.HeadingsWithoutChunks), func(i int) {
			h := c.HeadingsWithoutChunks[i]
			fmt.Fprintf(w, "  %s#%s  %q\n", cleanLine(h.Route), cleanLine(h.Anchor), cleanLine(h.Heading))
		})
	}
	fmt.Fprintln(w, "\nSummary:")
	for _, s := range r.Summary {
		fmt.Fprintf(w, "  %s.\n", cleanLine(s))
	}
	if len(r.Summary) == 1 && r.Limit.Known {
		fmt.Fprintln(w, "  No tiny, empty or duplicate chunks.")
	}
}

// chunkLabel names a chunk: page § section [#index] (id).
func chunkLabel(c chunkaudit.ChunkRef) string {
	s := c.Page
	if c.Section != "" {
		s += " § " + c.Section
	}
	if c.Index != nil {
		s += fmt.Sprintf(" [%d]", *c.Index)
	}
	return cleanLine(s + " (" + c.ID + ")")
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// auditBuilt runs the chunk audit on a freshly built index and says, on
// w, what it found: chunks over model's input limit (index --model) as a
// warning, tiny, empty and duplicate chunks as notes, each pointing at
// 'ragscope chunks' for the list. Without --model the offline embedder's
// limit applies (it reads whole chunks).
func auditBuilt(ctx context.Context, w io.Writer, walker retrieval.Walker, model, file string) error {
	limit := chunkaudit.LimitFor(model)
	if model != "" && !limit.Known {
		fmt.Fprintf(w, "warning: the input limit of %s is not known: run 'ragscope --index %s chunks --model %s --limit TOKENS' to check the chunks\n", cleanLine(model), cleanLine(file), cleanLine(model))
	}
	aud := chunkaudit.New(chunkaudit.Options{Limit: limit})
	err := walker.Walk(ctx, func(page []retrieval.Chunk, _ int) error {
		for i := range page {
			aud.Add(&page[i])
		}
		return ctx.Err()
	})
	if err != nil {
		return fmt.Errorf("check the chunks: %w", err)
	}
	r := aud.Report()
	list := "'ragscope --index " + cleanLine(file) + " chunks"
	if model != "" {
		list += " --model " + cleanLine(model)
	}
	list += "' lists them"
	if limit.Known && limit.Tokens > 0 && r.OverLimit.Chunks > 0 {
		fmt.Fprintf(w, "warning: %s (tokens estimated); %s of the text would not be searchable: %s\n",
			r.OverLimitSentence(), chunkaudit.Percent(r.OverLimit.UnseenPercent), list)
	}
	var found []string
	for _, f := range []struct {
		n         int
		one, many string
	}{
		{len(r.Tiny), "1 chunk is tiny", "%d chunks are tiny"},
		{len(r.Empty), "1 chunk has no text", "%d chunks have no text"},
		{len(r.Duplicates), "1 chunk repeats another's text", "%d chunks repeat another's text"},
		{len(r.NearDuplicates), "1 chunk nearly repeats another's text", "%d chunks nearly repeat another's text"},
	} {
		switch {
		case f.n == 1:
			found = append(found, f.one)
		case f.n > 1:
			found = append(found, fmt.Sprintf(f.many, f.n))
		}
	}
	if len(found) > 0 {
		fmt.Fprintf(w, "note: %s: %s\n", strings.Join(found, "; "), list)
	}
	return nil
}
