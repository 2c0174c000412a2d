package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
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
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cf.limit < 0 || cf.maxList < 0 {
				return Usagef("--limit and --max-list must not be negative")
			}
			var rules []chunkaudit.Rule
			if cmd.Flags().Changed("fail-on") {
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
	limit := be.Limits.For(model)
	if cf.limit > 0 {
		limit = chunkaudit.Limit{Model: model, Tokens: cf.limit, Known: true}
	}
	opts := chunkaudit.Options{Limit: limit, TinyTokens: cf.tiny}
	if cf.tiny <= 0 {
		opts.TinyTokens = -1
	}
	if opts.Site, err = app.AuditSite(be); err != nil {
		return &ExitError{Code: ExitConfig, Err: err}
	}
	bar := newBar(a.Stderr, false)
	rep, err := app.AuditChunks(ctx, be, opts, func(read, total int) { bar.update("reading chunks", read, total) })
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

// writeChunksText prints the audit for people: the sizes, the lists
// and, last, the summary (present's chunk audit text, which the
// explorer's Chunks view shares).
func writeChunksText(w io.Writer, be *app.Backend, r *chunkaudit.Report, maxList int) {
	fmt.Fprintln(w, header(be))
	present.WriteChunkSizes(w, r)
	present.WriteChunkLists(w, r, maxList, "--max-list 0 or --json for all")
	fmt.Fprintln(w)
	present.WriteChunkSummary(w, r)
}

// auditBuilt runs the chunk audit on a freshly built index and says, on
// w, what it found: chunks over model's input limit (index --model) as a
// warning, tiny, empty and duplicate chunks as notes, each pointing at
// 'ragscope chunks' for the list. Without --model the offline embedder's
// limit applies (it reads whole chunks). The limits are the provider
// table's.
func auditBuilt(ctx context.Context, w io.Writer, walker retrieval.Walker, limits chunkaudit.Limits, model, file string) error {
	limit := limits.For(model)
	if model != "" && !limit.Known {
		fmt.Fprintf(w, "warning: the input limit of %s is not known: run 'ragscope --index %s chunks --model %s --limit TOKENS' to check the chunks\n", cleanLine(model), cleanLine(file), cleanLine(model))
	}
	r, err := app.AuditIndex(ctx, walker, chunkaudit.Options{Limit: limit})
	if err != nil {
		return fmt.Errorf("check the chunks: %w", err)
	}
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
