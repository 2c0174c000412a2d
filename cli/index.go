package cli

import (
	"context"
	"fmt"
	"io"
	"ragscope/app"
	"ragscope/config"
	"ragscope/internal/platform"
	"ragscope/retrieval"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
)

// embedUsage is the index build's embedding line: "cohere
// embed-english-v3.0: 21 calls (4 in flight), 2000 chunks embedded, 0 from
// the cache, 123456 tokens".
func embedUsage(r app.IndexResult) string {
	tokens := fmt.Sprintf("%d tokens", r.Tokens)
	if r.TokensEstimated {
		tokens = fmt.Sprintf("about %d tokens (estimated: %s reports none)", r.Tokens, r.Provider)
	}
	return fmt.Sprintf("%s %s (dim %d): %d calls (%d in flight), %d chunks embedded, %d from the cache, %s",
		r.Provider, cleanLine(r.Model), r.Dim, r.Calls, r.Concurrency, r.Embedded, r.Cached, tokens)
}

// buildGCPercent is the garbage collector's target while an index builds.
const buildGCPercent = 50

// indexFlags are index's flags: -o, --model and --split; --follow-symlinks;
// --concurrency, --chunk-size and --overlap.
type indexFlags struct {
	out, model, split                string
	follow                           bool
	concurrency, chunkChars, overlap int
}

func (a *App) newIndexCmd() *cobra.Command {
	var xf indexFlags
	cmd := &cobra.Command{
		Use:   "index DOCS_DIR -o FILE",
		Short: "Build a local index of a Docusaurus docs folder",
		Long: `Chunk every markdown page under DOCS_DIR (split by heading, front matter
read, code fences respected), embed the chunks with the offline embedder and
save the index to FILE. Explore it with 'ragscope --index FILE' or
'ragscope query --index FILE "…"'.

With --embedder cohere, openai or gemini the chunks are embedded by that
provider's model instead (--model, --dimensions; its key as for queries):
documents with the provider's document input type, in batches at its
maximum, --concurrency calls in flight, through a cache of vectors in the
user cache folder ($XDG_CACHE_HOME/ragscope/embed) so that re-indexing an
edited book embeds only the chunks that changed, whatever FILE is. Questions
on the index are then embedded by the same provider and model. Without
--embedder naming a provider, the offline embedder is used even when a key
is set.

Chunks are cut at the ## and ### headings and packed up to --chunk-size
characters (default 1500) of whole blocks: a paragraph, code block, table,
list or admonition is cut only when it alone is longer, into parts of
near-equal size (a code block into valid code blocks). --overlap N starts
each chunk of a section with the last N words of the one before, and
--split size packs across headings. The default was chosen by measurement
on reader-phrased questions (the chunking table in docs/performance.md). The index
records its chunking and embedder: 'ragscope stats' shows them.

Citation URLs are built on --base-url, or on the url and baseUrl of a
docusaurus.config.js found next to DOCS_DIR. Given the site folder itself
(the one holding docusaurus.config.js), index takes its docs folder.

Files and folders reached through symbolic links that lead outside DOCS_DIR
are skipped with a warning unless --follow-symlinks is given. FILE is
replaced atomically: an interrupted or failed run (Ctrl+C, disk full) leaves
the previous index intact, and a second run writing the same FILE at the
same time stops at once (exit 2). When FILE is a symbolic link, the file it
leads to is replaced so and the link kept.

Exit codes: 0 saved, 2 DOCS_DIR, FILE or an option unusable (checked before
any work), 3 the provider failed (nothing written; the vectors embedded so
far stay cached), 130 interrupted (the cache is kept).`,
		Example: `  ragscope index website/docs -o book.idx
  ragscope index docs -o book.idx --base-url https://me.github.io/book/docs/
  ragscope index docs -o book-cohere.idx --embedder cohere
  ragscope index docs -o book-small.idx --chunk-size 600 --overlap 20`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return Usagef("index takes one DOCS_DIR argument, got %d", len(args))
			}
			if xf.out == "" {
				return Usagef("index needs -o FILE: where to save the index")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runIndex(cmd, args[0], xf)
		},
	}
	xf.register(cmd)
	return cmd
}

// register defines index's flags on cmd, bound to xf.
func (xf *indexFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&xf.out, "output", "o", "", "file to write the index to")
	f.BoolVar(&xf.follow, "follow-symlinks", false, "index files whose symbolic links lead outside DOCS_DIR")
	f.StringVar(&xf.model, "model", "", "with --embedder, the provider's model; else warn when a chunk is longer than this embedding model reads (e.g. embed-english-v3.0: 512 tokens)")
	f.IntVar(&xf.concurrency, "concurrency", 0, "with --embedder, embedding calls in flight (default: the provider's, 4)")
	f.IntVar(&xf.chunkChars, "chunk-size", app.DefaultChunkChars, "largest chunk in characters")
	f.IntVar(&xf.overlap, "overlap", app.DefaultOverlap, "words of a chunk's end the next chunk of its section repeats (0: none)")
	f.StringVar(&xf.split, "split", app.DefaultSplit, "cut pages at their headings ("+app.SplitHeadings+") or by size across them ("+app.SplitSize+")")
}

// runIndex builds the index of docs into xf.out and prints its summary.
func (a *App) runIndex(cmd *cobra.Command, docs string, xf indexFlags) error {
	start := time.Now()
	// A build's heap is mostly the postings and vectors it keeps:
	// collecting at 50% growth instead of 100% held a 44,000-chunk
	// build at about 825 MB instead of 894 MB (30%: 780 MB, but a
	// 10,000-chunk build took a fifth more CPU). A GOGC the user
	// set wins.
	if _, set := a.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
	}
	w := cmd.ErrOrStderr()
	bar := newBar(a.Stderr, true)
	job := app.IndexJob{
		Docs: docs, Out: xf.out, FollowSymlinks: xf.follow, Settings: a.Cfg,
		Note:     func(msg string) { fmt.Fprintf(w, "note: %s\n", cleanLine(msg)) },
		Warn:     func(msg string) { fmt.Fprintf(w, "warning: %s\n", cleanLine(msg)) },
		Progress: bar.update,
		Clear:    bar.clear,
		Before:   a.beforeBuild,
		Check: func(ctx context.Context, ix retrieval.Walker) error {
			return auditBuilt(ctx, w, ix, a.providers().Limits(), xf.model, xf.out)
		},
		Concurrency: xf.concurrency, ChunkChars: xf.chunkChars, Overlap: xf.overlap, Split: xf.split,
		Providers: a.providers(),
		Log:       a.debugLogger(),
	}
	if app.IndexEmbedder(a.Cfg.Embedder) {
		job.Embedder, job.Model, job.Dimensions = a.Cfg.Embedder, xf.model, a.Cfg.EmbedDimensions
		if job.Model == "" && a.Cfg.EmbedModel != config.DefaultEmbedModel {
			job.Model = a.Cfg.EmbedModel // RAGSCOPE_EMBED_MODEL, embedder.model
		}
		// No cache folder: nothing is kept between runs.
		job.CacheDir, _ = app.EmbedCacheDir(a.LookupEnv)
	}
	res, err := app.BuildIndex(cmd.Context(), job)
	if err != nil {
		if res.Embedded > 0 && job.CacheDir != "" {
			fmt.Fprintf(w, "note: the %d chunks embedded before the failure are cached in %s: a new run embeds only the rest\n", res.Embedded, cleanLine(job.CacheDir))
		}
		return err
	}
	sum := cmd.OutOrStdout()
	if platform.IsStdout(xf.out) {
		sum = w // the index owns standard output (-o /dev/stdout)
	}
	writeIndexSummary(sum, res, xf.out, time.Since(start))
	return nil
}

// writeIndexSummary prints what a build saved into out and how: pages,
// chunks, model, citation base, modules, chunking and the embedding calls.
func writeIndexSummary(w io.Writer, res app.IndexResult, out string, took time.Duration) {
	base := res.DocsBase
	if base == "" {
		base = "/docs/ (no --base-url and no docusaurus.config.js found: citation URLs are site-relative)"
	}
	fmt.Fprintf(w, "Indexed %d pages, %d chunks (%d files skipped) from %s into %s in %s\nModel: %s (dim %d)\nCitation base: %s\n",
		res.Pages, res.Chunks, res.Skipped, cleanLine(res.Docs), cleanLine(out), took.Round(time.Millisecond), res.Model, res.Dim, cleanLine(base))
	if res.Layout != "" {
		fmt.Fprintln(w, "Modules: "+cleanLine(res.Layout))
	}
	fmt.Fprintln(w, "Chunking: "+res.Chunking.String())
	if res.Provider != "" {
		fmt.Fprintln(w, "Embedding: "+embedUsage(res))
	}
}
