package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/config"
	"ragscope/retrieval/assess/golden"
)

// goldenGenerateFlags are golden generate's flags.
type goldenGenerateFlags struct {
	n           int
	out         string
	seed        uint64
	concurrency int
	force       bool
}

// newGoldenGenerateCmd is `ragscope golden generate`.
func newGoldenGenerateCmd(a *App) *cobra.Command {
	var gf goldenGenerateFlags
	cmd := &cobra.Command{
		Use:   "generate [DOCS_DIR]",
		Short: "Write a golden set from the book: questions a reader would ask, each section's own, checked by the chat model",
		Long: `Sample sections of the book (DOCS_DIR, else --index FILE, else the
configured collection) across its pages, weighted by their text and
skipping stubs (sections under 20 words): the same sections for the same
book, -n and --seed. For each, the chat model writes two questions a reader
would ask that the section answers, in the reader's words: a specific fact,
and an abstract how or why. Each becomes a case expecting the section's doc
path and URL#anchor. A second pass drops the questions the section does not
answer (the chat model checks each), the ones that copy the heading, and
near-duplicates; the report says how many and why.

Every call asks for JSON through the provider's structured-output option;
an answer that cannot be read drops its question (counted, never written).
Answers are cached in the user cache folder ($XDG_CACHE_HOME/ragscope/golden)
by model, prompt version and section text: a re-run on an unchanged book
makes no call, whatever -o says. The file starts with comments naming the
model, prompt versions, date and source. It is written atomically; Ctrl+C
writes the cases finished so far. A FILE that exists is replaced only when
this command wrote it (or with --force).

The chat model: --chat-provider cohere (COHERE_API_KEY), openai
(OPENAI_API_KEY, or OPENAI_BASE_URL for Ollama, vLLM or LM Studio), as
for 'ragscope ask'; --chat-model picks the model.

Exit codes: 0 written, 1 no question kept, 2 no chat model, FILE not
writable (checked before any call) or a book with no section to ask
about, 3 chat model or backend unreachable or refused, or every call
failed (the cases finished are written; the last failure is named), 64 bad usage or a FILE this command did not write without
--force, 130 interrupted (the cases finished are written).`,
		Example: `  ragscope golden generate website/docs -n 50 -o golden.yaml
  ragscope golden generate --index book.idx -n 100 --seed 2 -o more.yaml
  OPENAI_BASE_URL=http://localhost:11434/v1 ragscope golden generate docs --chat-model llama3.2 -o golden.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) > 1:
				return Usagef("golden generate takes at most one DOCS_DIR argument, got %d", len(args))
			case gf.out == "":
				return Usagef("golden generate needs -o FILE: where to write the set")
			case gf.n < 1 || gf.n > 10000:
				return Usagef("-n must be 1..10000, got %d", gf.n)
			case gf.concurrency < 1 || gf.concurrency > 64:
				return Usagef("--concurrency must be 1..64, got %d", gf.concurrency)
			case len(args) == 1 && cmd.Flags().Changed("index"):
				return Usagef("give DOCS_DIR or --index, not both")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				a.Cfg.DocsDir, a.Cfg.IndexFile, a.Cfg.Backend = args[0], "", config.BackendLocal
			}
			return a.runGoldenGenerate(cmd, gf)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&gf.n, "number", "n", 50, "questions to ask for (two per section)")
	f.StringVarP(&gf.out, "output", "o", "", "file to write the golden set to (YAML; - for standard output)")
	f.Uint64Var(&gf.seed, "seed", 1, "sampling seed: another seed samples other sections")
	f.IntVar(&gf.concurrency, "concurrency", golden.DefaultConcurrency, "sections worked on at once (calls in flight)")
	f.BoolVar(&gf.force, "force", false, "replace FILE even when this command did not write it")
	return cmd
}

func (a *App) runGoldenGenerate(cmd *cobra.Command, gf goldenGenerateFlags) error {
	ctx := cmd.Context()
	out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if toStdout(gf.out) {
		out = errw // the set owns standard output
	}
	// A set that cannot be written, or would replace a hand-written
	// file, fails now, before any call. A pipe or a device is written
	// to, never replaced.
	if err := checkOutPath("-o", gf.out, "golden.yaml"); err != nil {
		return err
	}
	if st, err := os.Stat(gf.out); err == nil && !toStdout(gf.out) && st.Mode().IsRegular() && st.Size() > 0 && !gf.force && !golden.Generated(gf.out) {
		return Usagef("-o %s exists and was not written by 'ragscope golden generate': give --force to replace it, or another file", gf.out)
	}
	dir, _ := app.CacheDir(a.LookupEnv, "golden") // no cache folder: nothing kept between runs
	g, err := a.assembler().GoldenGenerator(a.setup(), dir, gf.concurrency)
	if err != nil {
		return err
	}
	be, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	// The bar draws its own line (\r and erase codes): the raw stream.
	bar := newBar(a.Stderr, false)
	secs, source, err := app.GoldenBook(ctx, be, func(read, total int) { bar.update("reading chunks", read, total) })
	bar.clear()
	if err != nil {
		if app.IsMissingField(err) {
			return &ExitError{Code: ExitConfig, Err: err}
		}
		return err
	}
	picked := golden.Sample(secs, (gf.n+1)/2, gf.seed)
	if len(picked) == 0 {
		return &ExitError{Code: ExitConfig, Err: fmt.Errorf("%s has no section of %d words or more to ask about", cleanLine(be.Label), golden.MinWords)}
	}
	fmt.Fprintf(errw, "Writing questions for %d sections of %d with %s (%d at a time)…\n", len(picked), len(secs), cleanLine(g.Model()), gf.concurrency)
	start := time.Now()
	res, runErr := g.Run(ctx, picked, func(done, total int) {
		bar.update("writing questions"+eta(start, time.Now(), done, total), done, total)
	})
	bar.clear()
	res.Questions = limit(res.Questions, gf.n)
	written := false
	if len(res.Questions) > 0 {
		name := strings.TrimSuffix(filepath.Base(gf.out), filepath.Ext(gf.out))
		if toStdout(gf.out) {
			name = "golden"
		}
		data, err := golden.Encode(name, golden.Header{Model: g.Model(), PromptVersion: g.PromptVersion(), Date: time.Now(), Source: source, N: gf.n, Seed: gf.seed, Result: res})
		if err != nil {
			return err
		}
		if err := writeOutFile(ctx, gf.out, cmd.OutOrStdout(), func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return &ExitError{Code: ExitConfig, Err: err}
		}
		written = true
	}
	writeGoldenReport(out, g, gf, res, written, time.Since(start))
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case !written && errors.As(runErr, new(*app.ChatDownError)):
		// The chat model is down: said as when every call failed.
		return &ExitError{Code: ExitBackend, Err: fmt.Errorf("no question was kept: nothing written: %w", runErr)}
	case runErr != nil:
		return fmt.Errorf("golden generate: the chat model stopped the run after %d calls: %w", res.Calls, runErr)
	case !written && res.CallErr != nil:
		// The chat model is down (5xx, refused, timed out, rate-limited
		// past its retries): a backend failure, named, not "no result".
		return &ExitError{Code: ExitBackend, Err: fmt.Errorf("no question was kept: nothing written: the chat model failed: %w", res.CallErr)}
	case !written:
		return &ExitError{Code: ExitNoResults, Err: errors.New("no question was kept: nothing written")}
	}
	return nil
}

// limit is qs cut to n (an odd -n: the last section's second question).
func limit(qs []golden.Question, n int) []golden.Question {
	if len(qs) > n {
		return qs[:n]
	}
	return qs
}

// eta is the progress label's " · ETA 12s" after done of total steps
// since start ("" before the first step and at the end).
func eta(start, now time.Time, done, total int) string {
	if done <= 0 || done >= total {
		return ""
	}
	left := time.Duration(float64(now.Sub(start)) / float64(done) * float64(total-done))
	return " · ETA " + left.Round(time.Second).String()
}

// writeGoldenReport prints what was written, dropped and spent.
func writeGoldenReport(w io.Writer, g *golden.Generator, gf goldenGenerateFlags, res golden.Result, written bool, took time.Duration) {
	if written {
		fmt.Fprintf(w, "Wrote %d questions to %s", len(res.Questions), cleanLine(gf.out))
	} else {
		fmt.Fprintf(w, "Wrote nothing to %s", cleanLine(gf.out))
	}
	fmt.Fprintf(w, " (%d sections, %d questions asked)\n", res.Sections-res.NotRun, res.Asked)
	if res.NotRun > 0 {
		fmt.Fprintf(w, "Stopped early: %d of %d sections not worked on\n", res.NotRun, res.Sections)
	}
	if res.Asked > 0 {
		share := 100 * float64(res.DroppedTotal()) / float64(res.Asked)
		fmt.Fprintf(w, "Dropped %d of %d (%.0f%%): %s\n", res.DroppedTotal(), res.Asked, share, golden.DropSummary(res))
	}
	fmt.Fprintf(w, "Chat %s · prompts %s · %d calls (%d in + %d out tokens) · %d of %d sections from the cache · %s\n",
		cleanLine(g.Model()), g.PromptVersion(), res.Calls, res.Usage.InputTokens, res.Usage.OutputTokens, res.CachedSections, res.Sections-res.NotRun, took.Round(time.Millisecond))
}
