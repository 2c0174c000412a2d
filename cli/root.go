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

	"ragscope/app"
	"ragscope/config"
	"ragscope/internal/jsonsafe"
	"ragscope/retrieval"
	"ragscope/termsafe"
)

// Exit codes, as documented in docs/reference.md: a value the command line gives
// that its parser rejects is a usage error (64); a configuration that cannot
// be used, wherever it comes from, is a configuration error (2).
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
	// armCfgs are the other setups a comparison (--vs) resolved: their
	// secrets are hidden too.
	armCfgs []config.Config
	// vsName is the explorer's setup B (--vs on the root command, ""
	// none); vsSetups are the named setups B can be, in the file's order.
	vsName   string
	vsSetups []app.Setup

	// Providers is the provider table (app.Providers() when nil).
	Providers app.Table

	flags    globalFlags
	backends []*app.Backend
	// beforeBuild, when set (by tests), runs as an index build starts.
	beforeBuild func()
	debugFile   *os.File
}

// globalFlags are the persistent flags that are not settings.
type globalFlags struct {
	configFile string
	// setup is the named setup of ragscope.toml (--setup).
	setup string
	// settings holds the raw text of each setting's flag, by flag name;
	// the setting's parser reads it in resolveConfig.
	settings map[string]*settingFlag
	// explorer holds the explorer's own flags for settings that
	// subcommands define themselves (ragscope -k 10 opens the explorer
	// with top_k 10; query has its own --top-k).
	explorer map[string]*settingFlag
}

// settingFlag is the pflag.Value of a setting's flag. It keeps the text as
// given: the setting's one parser (config.Settings) reads it, as it reads
// the environment and ragscope.toml.
type settingFlag struct{ raw, typ string }

func (f *settingFlag) String() string { return f.raw }

// Set records the text; it is parsed when the configuration is resolved.
func (f *settingFlag) Set(s string) error { f.raw = s; return nil }

// Type names the value's kind in --help.
func (f *settingFlag) Type() string { return f.typ }

// Main runs ragscope with the process's streams and environment and returns
// the exit code.
func Main(ctx context.Context, args []string) int {
	dir, _ := os.Getwd()
	app := &App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, LookupEnv: os.LookupEnv, Dir: dir}
	return app.Run(ctx, args)
}

// Run executes args and returns the exit code; errors are printed to Stderr.
func (a *App) Run(ctx context.Context, args []string) int {
	// Every line a command prints goes through one sanitiser: whatever
	// collection text a command forgets to clean, no escape sequence,
	// control or bidi character reaches the terminal. What draws its own
	// codes (the explorer, progress lines) or writes bytes that are not
	// text writes to a.Stdout and a.Stderr directly.
	stdout, stderr := termsafe.NewWriter(a.Stdout), termsafe.NewWriter(a.Stderr)
	defer stdout.Flush()
	defer stderr.Flush()
	root := a.NewRootCmd()
	root.SetArgs(args)
	root.SetIn(a.Stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	ran, err := root.ExecuteContextC(ctx)
	notes := a.backendNotes()
	a.closeBackends()
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "ragscope: interrupted")
		return ExitInterrupted
	}
	code := ExitCode(err)
	var ee *ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return code
	}
	fmt.Fprintf(stderr, "ragscope: %s\n", a.redactText(errorLine(err)))
	for _, n := range notes {
		fmt.Fprintf(stderr, "note: %s\n", a.redactText(cleanLine(n)))
	}
	if code == ExitUsage {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", helpPath(ran, root))
	}
	return code
}

// helpPath is the command whose --help a usage error points to: the
// subcommand that ran (ragscope query), or ragscope itself.
func helpPath(ran, root *cobra.Command) string {
	if ran == nil {
		return root.CommandPath()
	}
	return ran.CommandPath()
}

// noArgs is cobra.NoArgs as a usage error (exit 64), naming the command:
// "ragscope bogus" is a mistyped command, "ragscope stats x" a stray word.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if !cmd.HasParent() {
		return Usagef("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	return Usagef("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
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

// errorLine is the line printed for a failed run: a classified backend or
// configuration error gets the message the explorer shows for it
// (retrieval.Describe, which names the backend that timed out); usage and
// other errors are shown as they are.
func errorLine(err error) string {
	if errors.As(err, new(usageError)) {
		return Message(err)
	}
	for _, class := range []error{retrieval.ErrConfig, retrieval.ErrAuth, retrieval.ErrNotFound, retrieval.ErrUnavailable, context.DeadlineExceeded} {
		if errors.Is(err, class) {
			return retrieval.Describe(err)
		}
	}
	return Message(err)
}

// Message is the line a person sees for err (app.Message): validation
// errors are shown as their actionable text without the wrapping chain.
func Message(err error) string { return app.Message(err) }

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
		Version:       buildVersion().String(),
		Args:          noArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.resolveConfig(cmd)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRoot(cmd)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{flagError(err)} })
	f := root.PersistentFlags()
	f.StringVar(&a.flags.configFile, "config", "", "config file (default ./ragscope.toml; env RAGSCOPE_CONFIG)")
	f.StringVar(&a.flags.setup, "setup", "", "use the named setup of ragscope.toml ([setups.NAME]: its keys over the file's top level and the environment; 'ragscope setups' lists them)")
	a.registerSettingFlags(f)
	a.registerExplorerFlags(root.Flags())

	root.Flags().String(vsFlag, "", "the explorer's setup B: the named setup of ragscope.toml that key V sets beside --setup's ranking")

	root.AddCommand(
		// subcommands
		a.newEvalCmd(),
		a.newGoldenCmd(),
		registerVs(a.newQueryCmd(), false),
		a.newAskCmd(),
		a.newStatsCmd(),
		a.newIndexCmd(),
		a.newLinksCmd(),
		a.newChunksCmd(),
		a.newSetupsCmd(),
		a.newVersionCmd(),
	)
	// `ragscope --version` prints the same line as `ragscope version`.
	root.SetVersionTemplate("{{.Version}}\n")
	a.setHelp(root)
	return root
}

// registerSettingFlags defines on f (the root's persistent flags) one flag
// a row of config.Settings that has one, its help from the provider table
// where it names providers, with its environment variables.
func (a *App) registerSettingFlags(f *pflag.FlagSet) {
	a.flags.settings = map[string]*settingFlag{}
	defaults := config.Default()
	for _, st := range a.providers().ConfigRows().Settings() {
		if st.Flag == "" {
			continue
		}
		typ := st.Type
		if typ == "" {
			typ = "string"
		}
		v := &settingFlag{typ: typ}
		a.flags.settings[st.Flag] = v
		help := st.Help
		if h, ok := a.providers().SettingHelp(st.Name); ok {
			help = h
		}
		if len(st.Env) > 0 {
			help += " (env " + strings.Join(st.Env, ", ") + ")"
		}
		fl := f.VarPF(v, st.Flag, st.Short, help)
		if st.Get != nil && !st.Secret {
			fl.DefValue = st.Get(defaults)
		}
	}
}

// registerExplorerFlags defines on f (the root's own flags) the explorer's
// starting top_k and threshold: the settings that subcommands define as
// their own flags, also on the root command (not inherited, so query's
// --top-k/-k stays its own).
func (a *App) registerExplorerFlags(f *pflag.FlagSet) {
	defaults := config.Default()
	a.flags.explorer = map[string]*settingFlag{}
	for _, st := range a.providers().ConfigRows().Settings() {
		if st.CommandFlag == "" || st.Flag != "" {
			continue
		}
		v := &settingFlag{typ: st.Type}
		a.flags.explorer[st.CommandFlag] = v
		short := ""
		if st.CommandFlag == "top-k" {
			short = "k"
		}
		fl := f.VarPF(v, st.CommandFlag, short, "the explorer's starting "+st.Help)
		if st.Get != nil {
			fl.DefValue = st.Get(defaults)
		}
	}
}

// setHelp makes root's help cobra's own, then the environment and exit
// codes: written after it, not through a help template, which cobra
// parses and runs by reflection on every --help (cobra's default is a
// plain function).
func (a *App) setHelp(root *cobra.Command) {
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		a.showEffectiveDefaults(cmd)
		if cmd.HasParent() {
			// A subcommand's help is its own: its flags, then one line
			// pointing to the global flags, the environment and the exit
			// codes, which only ragscope --help lists.
			cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { f.Hidden = true })
			defaultHelp(cmd, args)
			fmt.Fprint(cmd.OutOrStdout(), globalHelpPointer)
			return
		}
		defaultHelp(cmd, args)
		fmt.Fprint(cmd.OutOrStdout(), envHelp(a.providers()))
	})
}

// globalHelpPointer ends a subcommand's --help: where the settings every
// command shares are described.
const globalHelpPointer = "\nGlobal flags (--index, --docs, --backend, --setup, --config, …), the\nenvironment variables, ragscope.toml and the exit codes: ragscope --help\n"

// envHelp is the end of ragscope --help: the environment variables (the
// help of those that list providers from the provider table t) and the
// exit codes.
func envHelp(t app.Table) string {
	setting := map[string]string{} // first variable -> setting name
	for _, st := range t.ConfigRows().Settings() {
		if len(st.Env) > 0 {
			setting[st.Env[0]] = st.Name
		}
	}
	var b strings.Builder
	b.WriteString("\nEnvironment (flags win over the environment, which wins over ragscope.toml;\na .env file in the working directory is read too):\n")
	for _, v := range t.ConfigRows().EnvVars() {
		help := v.Help
		if h, ok := t.SettingHelp(setting[v.Names[0]]); ok {
			help = h
		}
		fmt.Fprintf(&b, "  %-38s %s\n", strings.Join(v.Names, ", "), help)
	}
	b.WriteString("\nExit codes: 0 ok, 1 no results, 2 missing credentials or config (a bad value\nin ragscope.toml, .env or the environment, or a request the backend refused for\nwhat it asked: unknown model, unindexed filter field), 3 the backend failed\n(unreachable, timeout, invalid answer, refused key, no such collection), 4 check\nfailed, 64 usage error (a bad value on the command line), 130 interrupted.\n")
	return b.String()
}

// resolveConfig loads the configuration and applies the flags that were set.
func (a *App) resolveConfig(cmd *cobra.Command) error {
	if f := cmd.Flags().Lookup("setup"); f != nil && f.Changed && strings.TrimSpace(a.flags.setup) == "" {
		// An empty name would silently run the file's top level.
		return Usagef("--setup needs the name of a setup of ragscope.toml ('ragscope setups' lists them); leave --setup out for the file's top level")
	}
	cfg, err := a.loadConfig(cmd, a.flags.setup)
	if err != nil {
		return err
	}
	a.Cfg = cfg
	if cmd.Parent() == nil {
		if err := a.resolveVs(cmd); err != nil {
			return err
		}
	}
	if cfg.DebugLog != "" {
		f, err := openDebugLog(cmd.Context(), cfg.DebugLog)
		if err != nil {
			return fmt.Errorf("%w: --debug: cannot open the log file: %w", retrieval.ErrConfig, err)
		}
		a.debugFile = f
		// The build and the resolved configuration, keys redacted, start
		// every debug log.
		v := buildVersion()
		a.debugLogger().Debug("ragscope", "version", v.Version, "revision", v.Revision, "time", v.Time, "modified", v.Modified, "go", v.GoVersion)
		// A configuration that does not validate is not logged: one of its
		// values may be a key pasted into the wrong setting. The error,
		// which names settings and never values, is logged instead.
		if verr := a.providers().Validate(cfg); verr != nil {
			a.debugLogger().Debug("config", "invalid", Message(verr), "config_file", cfg.File, "env_file", cfg.EnvFile, "command", cmd.CommandPath())
		} else if b, err := json.Marshal(cfg.Redacted()); err == nil {
			a.debugLogger().Debug("config", "resolved", string(jsonsafe.Escape(b)), "command", cmd.CommandPath())
		}
	}
	return nil
}

// loadConfig loads the configuration with the named setup ("" none) and
// applies the flags that were set: the flags win over the setup, and in a
// comparison (--vs) apply to every setup alike.
func (a *App) loadConfig(cmd *cobra.Command, setup string) (config.Config, error) {
	cfg, err := config.Load(config.LoadOptions{Dir: a.Dir, File: a.flags.configFile, LookupEnv: a.LookupEnv, Providers: a.providers().ConfigRows(), Setup: setup})
	if err != nil {
		return cfg, err
	}
	fl := cmd.Flags()
	changed := func(name string) bool {
		f := fl.Lookup(name)
		return f != nil && f.Changed
	}
	for _, st := range a.providers().ConfigRows().Settings() {
		if st.Flag == "" || !changed(st.Flag) {
			continue
		}
		if err := st.Set(&cfg, strings.TrimSpace(a.flags.settings[st.Flag].raw)); err != nil {
			return cfg, usageError{fmt.Errorf("--%s: %w (the value is not shown)", st.Flag, err)}
		}
	}
	if cmd.Parent() == nil {
		for _, st := range a.providers().ConfigRows().Settings() {
			if v := a.flags.explorer[st.CommandFlag]; v != nil && st.CommandFlag != "" && changed(st.CommandFlag) {
				if err := st.Set(&cfg, strings.TrimSpace(v.raw)); err != nil {
					return cfg, usageError{fmt.Errorf("--%s: %w (the value is not shown)", st.CommandFlag, err)}
				}
			}
		}
		// Out of range on the command line is a usage error, as query's.
		if changed("top-k") && (cfg.TopK < retrieval.MinTopK || cfg.TopK > retrieval.MaxTopK) {
			return cfg, usageError{fmt.Errorf("--top-k must be between %d and %d, got %d", retrieval.MinTopK, retrieval.MaxTopK, cfg.TopK)}
		}
		if changed("threshold") && (cfg.Threshold < 0 || cfg.Threshold > 1 || cfg.Threshold != cfg.Threshold) {
			return cfg, usageError{fmt.Errorf("--threshold must be between 0.0 and 1.0, got %g", cfg.Threshold)}
		}
	}
	// One source is named on the command line: --docs replaces an index
	// from ragscope.toml or the environment, and --index a docs folder.
	// Both flags together stay an error (Problems).
	if changed("docs") && !changed("index") {
		cfg.IndexFile = ""
	}
	if changed("index") && !changed("docs") {
		cfg.DocsDir = ""
	}
	if (changed("index") || changed("docs")) && !changed("backend") && cfg.Backend == config.BackendAuto && cfg.QdrantURL != "" && !changed("qdrant-url") {
		// An explicit --index/--docs on the command line wins over a
		// QDRANT_URL in the environment.
		cfg.Backend = config.BackendLocal
	}
	return cfg, nil
}

// showEffectiveDefaults makes --help show, as each setting flag's default,
// the value that ragscope.toml, .env and the environment give it. A flag a
// command declares with its own default (eval's --top-k: "the file's") is
// left alone. A configuration that does not load shows the built-in
// defaults.
func (a *App) showEffectiveDefaults(cmd *cobra.Command) {
	cfg, err := config.Load(config.LoadOptions{Dir: a.Dir, File: a.flags.configFile, LookupEnv: a.LookupEnv, Providers: a.providers().ConfigRows(), Setup: a.flags.setup})
	if err != nil {
		return
	}
	builtin := config.Default()
	update := func(f *pflag.Flag) {
		st, ok := config.Lookup(f.Name)
		if !ok || st.Get == nil || st.Secret || f.DefValue != st.Get(builtin) {
			return
		}
		f.DefValue = st.Get(cfg)
	}
	cmd.Flags().VisitAll(update)
	cmd.InheritedFlags().VisitAll(update)
}

// flagError rewrites pflag's "invalid argument" errors, which quote the
// value (and the parser's message quotes it again), to name the flag and
// the expected type only: errors never echo a value, which may be a key
// pasted into the wrong place.
func flagError(err error) error {
	var ive *pflag.InvalidValueError
	if errors.As(err, &ive) && ive.GetFlag() != nil {
		f := ive.GetFlag()
		return fmt.Errorf("--%s: not a valid %s (the value is not shown)", f.Name, f.Value.Type())
	}
	return err
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
