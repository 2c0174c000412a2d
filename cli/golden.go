package cli

import "github.com/spf13/cobra"

// newGoldenCmd is `ragscope golden`, the commands that make golden sets
// for eval.
func (a *App) newGoldenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "golden",
		Short: "Make golden question sets for eval: generate them from the book, import real questions",
		Long: `Make golden question sets for ragscope eval without writing them by hand.

  golden generate [DOCS_DIR] -n 50 -o set.yaml
                                   questions a reader would ask, written by
                                   the chat model from sampled sections of
                                   the book and checked, each expecting its
                                   section
  golden import FILE -o set.yaml   real questions from a chatbot log (JSONL,
                                   CSV or plain lines), duplicates dropped,
                                   written as unlabelled cases`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return Usagef("unknown golden command %q: the commands are generate and import", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		newGoldenGenerateCmd(a),
		a.newGoldenImportCmd(),
	)
	return cmd
}
