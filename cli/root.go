// Package cli is ragscope's command line: the root command opens the TUI,
// and the query, stats, eval, links and index subcommands serve scripts and
// CI with --json output and exit codes.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ragscope/config"
	"ragscope/retrieval"
)

// Exit codes (seed 004, plus 64 for usage errors).
const (
	ExitOK        = 0
	ExitNoResults = 1
	ExitConfig    = 2
	ExitBackend   = 3
	ExitCheck     = 4
	ExitUsage     = 64
	// ExitInterrupted is the shell's code for a run stopped by Ctrl+C.
	ExitInterrupted = 130
)

// ExitError carries an exit code. A nil Err exits silently with Code.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the wrapped message.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *ExitError) Unwrap() error { return e.Err }

// usageError marks errors in the command line itself.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// Usagef returns a usage error (exit 64).
func Usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// App is one run of the command line: its streams, environment and the
// configuration resolved from defaults, file, environment and flags.
type App struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// LookupEnv reads the environment.
	LookupEnv func(string) (string, bool)
	// Dir is the working directory.
	Dir string

	// Cfg is resolved before any subcommand runs.
	Cfg config.Config

	flags     globalFlags
	backends  []*Backend
	debugFile *os.File
}

// globalFlags are the persistent flags of every command.
type globalFlags struct {
	configFile string
	backend    string
	qdrantURL  string
	collection string
	model      string
	index      string
	docs       string
	baseURL    string
	siteURL    string
	slugStyle  string
	siteDir    string
	timeout    string
	debug      string
	// --- providers (issue 9) ---
	embedder   string
	dimensions int
	// --- end providers ---
}

// Main runs ragscope with the process's streams and environment and returns
// the exit code.
func Main(ctx context.Context, args []string) int {
	dir, _ := os.Getwd()
	app := &App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, LookupEnv: os.LookupEnv, Dir: dir}
	return app.Run(ctx, args)
}

// Run executes args and returns the exit code; errors are printed to Stderr.
func (a *App) Run(ctx context.Context, args []string) int {
	root := a.NewRootCmd()
	root.SetArgs(args)
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	err := root.ExecuteContext(ctx)
	notes := a.backendNotes()
	a.closeBackends()
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintln(a.Stderr, "ragscope: interrupted")
		return ExitInterrupted
	}
	code := ExitCode(err)
	var ee *ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return code
	}
	fmt.Fprintf(a.Stderr, "ragscope: %s\n", Message(err))
	for _, n := range notes {
		fmt.Fprintf(a.Stderr, "note: %s\n", cleanLine(n))
	}
	if code == ExitUsage {
		fmt.Fprintln(a.Stderr, "Run 'ragscope --help' for usage.")
	}
	return code
}

// ExitCode maps an error to the documented exit codes.
func ExitCode(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.Code
	case errors.Is(err, retrieval.ErrInvalidQuery):
		return ExitUsage
	case errors.As(err, new(usageError)):
		return ExitUsage
	case errors.Is(err, retrieval.ErrConfig):
		return ExitConfig
	case errors.Is(err, retrieval.ErrUnavailable), errors.Is(err, retrieval.ErrAuth), errors.Is(err, retrieval.ErrNotFound):
		return ExitBackend
	case errors.Is(err, context.DeadlineExceeded):
		return ExitBackend
	}
	return 1
}

// Message is the line a person sees for err: validation errors are shown
// as their actionable text without the wrapping chain.
func Message(err error) string {
	var ve *retrieval.ValidationError
	if errors.As(err, &ve) {
		return ve.Error()
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, retrieval.ErrConfig.Error()+": ")
	return msg
}

// NewRootCmd builds the command tree.
func (a *App) NewRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "ragscope",
		Short: "Explore what a RAG system retrieves",
		Long: `ragscope shows what a RAG chatbot retrieves for a question: ranked chunks
with scores and citation URLs, what a threshold or dedup cut, the exact
grounded context an answering agent receives, and whether citation links
resolve.

With no subcommand it opens the interactive explorer. With QDRANT_URL set it
searches your Qdrant collection (questions embedded with Cohere); with --index
or --docs a local docs folder; otherwise an embedded demo textbook with an
offline embedder, so it works with no keys at all.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.resolveConfig(cmd)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRoot(cmd)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	f := root.PersistentFlags()
	f.StringVar(&a.flags.configFile, "config", "", "config file (default ./ragscope.toml; env RAGSCOPE_CONFIG)")
	f.StringVar(&a.flags.backend, "backend", "", "auto, demo, local or qdrant (env RAGSCOPE_BACKEND; default auto: qdrant if QDRANT_URL is set, local if --index/--docs, else demo)")
	f.StringVar(&a.flags.qdrantURL, "qdrant-url", "", "Qdrant URL, REST or gRPC form (env QDRANT_URL)")
	f.StringVar(&a.flags.collection, "collection", "", "Qdrant collection (env QDRANT_COLLECTION or COLLECTION_NAME)")
	f.StringVar(&a.flags.model, "model", "", "embedding model (env RAGSCOPE_EMBED_MODEL; default embed-english-v3.0 for Cohere, text-embedding-3-small for OpenAI)")
	f.StringVar(&a.flags.index, "index", "", "explore a saved local index file made by 'ragscope index' (env RAGSCOPE_INDEX)")
	f.StringVar(&a.flags.docs, "docs", "", "explore a Docusaurus docs folder, indexed on the fly (env RAGSCOPE_DOCS)")
	f.StringVar(&a.flags.baseURL, "base-url", "", "URL of the docs route citation URLs are built on, e.g. https://me.github.io/book/docs/ (env RAGSCOPE_BASE_URL)")
	f.StringVar(&a.flags.siteURL, "site-url", "", "site origin for site-relative payload URLs (env RAGSCOPE_SITE_URL)")
	f.StringVar(&a.flags.slugStyle, "slug-style", "", "heading anchor rule: github (as Docusaurus, default) or simple (env RAGSCOPE_SLUG_STYLE)")
	f.StringVar(&a.flags.siteDir, "site", "", "local Docusaurus site folder (docusaurus.config.js + docs/): link checks, and the base URL and trailingSlash of built citations (env RAGSCOPE_SITE_DIR)")
	f.StringVar(&a.flags.timeout, "timeout", "", "timeout of each network call, e.g. 10s (env RAGSCOPE_TIMEOUT; default 30s)")
	f.StringVar(&a.flags.debug, "debug", "", "write debug logs to this file")
	// --- providers (issue 9) ---
	f.StringVar(&a.flags.embedder, "embedder", "", "query embedder for Qdrant: auto, cohere, openai or gemini (env RAGSCOPE_EMBEDDER; default auto: the first of cohere, openai, gemini whose key is set)")
	f.IntVar(&a.flags.dimensions, "dimensions", 0, "vector size to ask the embedding model for, e.g. 1024 (env RAGSCOPE_EMBED_DIMENSIONS; default: the model's own, or the collection's when the model can shorten)")
	// --- end providers ---

	root.AddCommand(
		// subcommands
		a.newEvalCmd(),
		a.newQueryCmd(),
		a.newStatsCmd(),
		a.newIndexCmd(),
		a.newLinksCmd(),
	)
	root.SetHelpTemplate(root.HelpTemplate() + envHelp())
	return root
}

func envHelp() string {
	var b strings.Builder
	b.WriteString("\nEnvironment (flags win over the environment, which wins over ragscope.toml;\na .env file in the working directory is read too):\n")
	for _, v := range config.EnvVars() {
		fmt.Fprintf(&b, "  %-38s %s\n", strings.Join(v.Names, ", "), v.Help)
	}
	b.WriteString("\nExit codes: 0 ok, 1 no results, 2 missing credentials or config,\n3 cannot reach a backend, 4 check failed, 64 usage error.\n")
	return b.String()
}

// resolveConfig loads the configuration and applies the flags that were set.
func (a *App) resolveConfig(cmd *cobra.Command) error {
	cfg, err := config.Load(config.LoadOptions{Dir: a.Dir, File: a.flags.configFile, LookupEnv: a.LookupEnv})
	if err != nil {
		return err
	}
	fl := cmd.Flags()
	changed := func(name string) bool {
		f := fl.Lookup(name)
		return f != nil && f.Changed
	}
	if changed("backend") {
		b, err := config.ParseBackend(a.flags.backend)
		if err != nil {
			return usageError{err}
		}
		cfg.Backend = b
	}
	set := func(name string, dst *string, v string) {
		if changed(name) {
			*dst = v
		}
	}
	set("qdrant-url", &cfg.QdrantURL, a.flags.qdrantURL)
	set("collection", &cfg.Collection, a.flags.collection)
	set("model", &cfg.EmbedModel, a.flags.model)
	set("index", &cfg.IndexFile, a.flags.index)
	set("docs", &cfg.DocsDir, a.flags.docs)
	set("base-url", &cfg.DocsBaseURL, a.flags.baseURL)
	set("site-url", &cfg.SiteURL, a.flags.siteURL)
	set("slug-style", &cfg.SlugStyle, a.flags.slugStyle)
	set("site", &cfg.SiteDir, a.flags.siteDir)
	set("debug", &cfg.DebugLog, a.flags.debug)
	// --- providers (issue 9) ---
	if changed("embedder") {
		e, err := config.ParseEmbedder(a.flags.embedder)
		if err != nil {
			return usageError{err}
		}
		cfg.Embedder = e
	}
	if changed("dimensions") {
		if a.flags.dimensions < 0 {
			return usageError{fmt.Errorf("--dimensions must be 0 (the model's size) or positive, got %d", a.flags.dimensions)}
		}
		cfg.EmbedDimensions = a.flags.dimensions
	}
	// --- end providers ---
	if changed("timeout") {
		d, err := parseDuration(a.flags.timeout)
		if err != nil {
			return usageError{fmt.Errorf("--timeout %q: %w", a.flags.timeout, err)}
		}
		cfg.Timeout = d
	}
	if (changed("index") || changed("docs")) && !changed("backend") && cfg.Backend == config.BackendAuto && cfg.QdrantURL != "" && !changed("qdrant-url") {
		// An explicit --index/--docs on the command line wins over a
		// QDRANT_URL in the environment.
		cfg.Backend = config.BackendLocal
	}
	a.Cfg = cfg
	if cfg.DebugLog != "" {
		f, err := os.OpenFile(cfg.DebugLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("%w: --debug: cannot open the log file: %w", retrieval.ErrConfig, err)
		}
		a.debugFile = f
		// The resolved configuration, keys redacted, starts every debug log.
		if b, err := json.Marshal(cfg.Redacted()); err == nil {
			a.debugLogger().Debug("config", "resolved", string(b), "command", cmd.CommandPath())
		}
	}
	return nil
}

// changedFlag reports whether the named flag of cmd was set.
func changedFlag(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}

func (a *App) runRoot(cmd *cobra.Command) error {
	return a.runTUI(cmd)
}

// backendNotes gathers the remarks of the opened backends (a REST port
// mapped to gRPC, a named vector chosen…), which explain many errors.
func (a *App) backendNotes() []string {
	var notes []string
	for _, b := range a.backends {
		notes = append(notes, b.Notes...)
	}
	return notes
}

func (a *App) closeBackends() {
	for _, b := range a.backends {
		if b.Close != nil {
			_ = b.Close()
		}
	}
	a.backends = nil
	if a.debugFile != nil {
		_ = a.debugFile.Close()
		a.debugFile = nil
	}
}
