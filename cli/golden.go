package cli

import "github.com/spf13/cobra"

// newGoldenCmd is the parent of the golden set commands.
func (a *App) newGoldenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "golden",
		Short: "Make golden question sets for 'ragscope eval'",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newGoldenGenerateCmd(a))
	return cmd
}
