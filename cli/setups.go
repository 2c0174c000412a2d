package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"ragscope/config"
)

// SetupsSchema names the version of the `ragscope setups --json` document.
const SetupsSchema = "ragscope.setups/v1"

// SetupsJSON lists the named setups of ragscope.toml.
type SetupsJSON struct {
	Schema string      `json:"schema"`
	File   string      `json:"file"`
	Setups []SetupJSON `json:"setups"`
}

// SetupJSON is one named setup as it resolves (the file's top level, the
// environment, the setup's keys, then the command line's flags).
type SetupJSON struct {
	Name     string `json:"name"`
	Line     int    `json:"line"`
	Backend  string `json:"backend"`
	Source   string `json:"source"`
	Embedder string `json:"embedder"`
	Search   string `json:"search,omitempty"`
	Rerank   string `json:"rerank,omitempty"`
	TopK     int    `json:"top_k"`
	// Problem is what keeps the setup from opening (missing key, file…).
	Problem string `json:"problem,omitempty"`
}

func (a *App) newSetupsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "setups",
		Short: "List the named setups of ragscope.toml ([setups.NAME]) for --setup and --vs",
		Long: `List the named setups of ragscope.toml: each [setups.NAME] table takes
the keys of the file's top level, and the keys it does not set come from
the top level. A setup's keys win over the environment; flags win over
both. Choose one with --setup NAME on any command (and the explorer);
compare two with 'ragscope eval SET --setup A --vs B' or
'ragscope query --setup A --vs B QUESTION'.

Exit codes: 0 listed, 1 the file defines no setups, 2 a bad ragscope.toml.`,
		Example: `  ragscope setups
  ragscope eval golden.yaml --setup small --vs large
  ragscope --setup small`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			doc := SetupsJSON{Schema: SetupsSchema, File: a.Cfg.File}
			for _, name := range a.Cfg.SetupNames {
				cfg, err := a.loadConfig(cmd, name)
				if err != nil {
					return err
				}
				doc.Setups = append(doc.Setups, a.describeSetup(cfg))
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(out, doc); err != nil {
					return err
				}
			} else {
				writeSetupsText(out, doc)
			}
			if len(doc.Setups) == 0 {
				return &ExitError{Code: ExitNoResults}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the setups as JSON (schema "+SetupsSchema+")")
	return cmd
}

// describeSetup is what a resolved setup uses, without opening it.
func (a *App) describeSetup(cfg config.Config) SetupJSON {
	s := SetupJSON{Name: cfg.Setup, Line: cfg.SetupLine(cfg.Setup), Backend: string(cfg.Resolved()),
		Embedder: cfg.Embedder, Rerank: cfg.RerankModel, TopK: cfg.TopK}
	switch cfg.Resolved() {
	case config.BackendQdrant:
		s.Source = "collection " + cfg.Collection
		s.Embedder += " " + cfg.EmbedModel
	case config.BackendLocal:
		s.Source = "index " + cfg.IndexFile
		if cfg.DocsDir != "" {
			s.Source = "docs " + cfg.DocsDir
		}
		s.Search = cfg.LocalSearch
	default:
		s.Source = "demo textbook"
		s.Search = cfg.LocalSearch
	}
	if err := a.providers().Validate(cfg); err != nil {
		s.Problem = Message(err)
	}
	return s
}

// writeSetupsText prints the setups, one a line.
func writeSetupsText(w io.Writer, doc SetupsJSON) {
	if len(doc.Setups) == 0 {
		file := doc.File
		if file == "" {
			file = "no ragscope.toml was read"
		}
		fmt.Fprintf(w, "No setups (%s). Add one to ragscope.toml:\n\n  [setups.small.local]\n  index = \"small.idx\"\n", cleanLine(file))
		return
	}
	fmt.Fprintf(w, "Setups in %s (--setup NAME; compare with --vs):\n", cleanLine(doc.File))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tLINE\tBACKEND\tSOURCE\tEMBEDDER\tSEARCH\tRERANK\tTOP_K")
	for _, s := range doc.Setups {
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\n", clip(s.Name, 24), s.Line, s.Backend, clip(s.Source, 40),
			clip(strings.TrimSpace(s.Embedder), 40), orDash(s.Search), orDash(s.Rerank), s.TopK)
	}
	tw.Flush()
	for _, s := range doc.Setups {
		if s.Problem != "" {
			fmt.Fprintf(w, "  note: %s: %s\n", cleanLine(s.Name), cleanLine(s.Problem))
		}
	}
}
