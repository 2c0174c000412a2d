package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/local"
)

// buildGCPercent is the garbage collector's target while an index builds.
const buildGCPercent = 50

func (a *App) newIndexCmd() *cobra.Command {
	var (
		out    string
		follow bool
		model  string
	)
	cmd := &cobra.Command{
		Use:   "index DOCS_DIR -o FILE",
		Short: "Build a local index of a Docusaurus docs folder",
		Long: `Chunk every markdown page under DOCS_DIR (split by heading, front matter
read, code fences respected), embed the chunks with the offline embedder and
save the index to FILE. Explore it with 'ragscope --index FILE' or
'ragscope query --index FILE "…"'.

Citation URLs are built on --base-url, or on the url and baseUrl of a
docusaurus.config.js found next to DOCS_DIR. Given the site folder itself
(the one holding docusaurus.config.js), index takes its docs folder.

Files and folders reached through symbolic links that lead outside DOCS_DIR
are skipped with a warning unless --follow-symlinks is given. FILE is
replaced atomically: an interrupted or failed run (Ctrl+C, disk full) leaves
the previous index intact, and a second run writing the same FILE at the
same time stops at once (exit 2). When FILE is a symbolic link, the file it
leads to is replaced so and the link kept.

Exit codes: 0 saved, 2 DOCS_DIR or FILE unusable (checked before any work),
130 interrupted.`,
		Example: `  ragscope index website/docs -o book.idx
  ragscope index docs -o book.idx --base-url https://me.github.io/book/docs/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return Usagef("index takes one DOCS_DIR argument, got %d", len(args))
			}
			if out == "" {
				return Usagef("index needs -o FILE: where to save the index")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			// -o LINK writes through the link: its target is replaced
			// (atomically, next to it) and the link kept.
			target, err := local.OutputTarget(out)
			if err != nil {
				return err
			}
			if target != out {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s is a symbolic link: the index is written to the file it leads to, %s (the link is kept)\n", cleanLine(out), cleanLine(target))
			}
			// A read-only or missing output folder fails now, not after
			// the build.
			if err := local.CheckWritable(target); err != nil {
				return err
			}
			// Two runs writing the same file: the second stops now.
			unlock, err := local.LockOutput(target)
			if err != nil {
				return err
			}
			defer unlock()
			// A build's heap is mostly the postings and vectors it keeps:
			// collecting at 50% growth instead of 100% held a 44,000-chunk
			// build at about 825 MB instead of 894 MB (30%: 780 MB, but a
			// 10,000-chunk build took a fifth more CPU). A GOGC the user
			// set wins.
			if _, set := a.LookupEnv("GOGC"); !set {
				defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
			}
			if a.beforeBuild != nil {
				a.beforeBuild()
			}
			docsDir := args[0]
			if d, ok := siteDocsDir(docsDir); ok {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s is a Docusaurus site folder: indexing its docs folder %s\n", cleanLine(docsDir), cleanLine(d))
				docsDir = d
			}
			bar := newBar(a.Stderr, true)
			bar.update("reading "+docsDir, 0, 1)
			ix, corpus, err := local.BuildDir(cmd.Context(), docsDir, local.BuildOptions{
				BaseURL: a.Cfg.DocsBaseURL, FollowSymlinks: follow, Progress: bar.update, Chunk: a.chunkOptions(),
			})
			bar.clear()
			if err != nil {
				return err
			}
			w := cmd.ErrOrStderr()
			for _, warn := range corpus.Warnings {
				fmt.Fprintf(w, "warning: %s\n", cleanLine(warn.String()))
			}
			if model != "" {
				if err := warnOverLimit(cmd.Context(), w, ix, model, out); err != nil {
					return err
				}
			}
			bar.update("saving "+out, 0, 1)
			err = local.SaveIndex(cmd.Context(), target, ix, corpus)
			bar.clear()
			if err != nil {
				return err
			}
			base := corpus.DocsBase
			if base == "" {
				base = "/docs/ (no --base-url and no docusaurus.config.js found: citation URLs are site-relative)"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Indexed %d pages, %d chunks (%d files skipped) from %s into %s in %s\nModel: %s (dim %d)\nCitation base: %s\n",
				corpus.Pages, ix.Len(), corpus.Skipped, cleanLine(docsDir), cleanLine(out), time.Since(start).Round(time.Millisecond), ix.Info().Model, ix.Dim(), cleanLine(base))
			if n := a.layoutNote(docsDir); n != "" {
				fmt.Fprintln(cmd.OutOrStdout(), "Modules: "+cleanLine(n))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write the index to")
	cmd.Flags().BoolVar(&follow, "follow-symlinks", false, "index files whose symbolic links lead outside DOCS_DIR")
	cmd.Flags().StringVar(&model, "model", "", "warn when a chunk is longer than this embedding model reads (e.g. embed-english-v3.0: 512 tokens)")
	return cmd
}

// siteDocsDir is the docs folder of dir when dir is a Docusaurus site
// folder (it holds docusaurus.config.* and the docs folder that config
// names): what a user who points `index` at the site means.
func siteDocsDir(dir string) (string, bool) {
	cfg, _, ok := docusaurus.FindConfig(os.DirFS(dir), ".")
	if !ok || cfg.DocsPath == "" {
		return "", false
	}
	docs := filepath.Join(dir, filepath.FromSlash(cfg.DocsPath))
	if st, err := os.Stat(docs); err != nil || !st.IsDir() {
		return "", false
	}
	return docs, true
}
