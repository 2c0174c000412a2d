package split

import (
	"context"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// The split key's help and hint say what it compares, or how to get a
// setup to compare with.
func TestSetupHelpAndHint(t *testing.T) {
	retrieve := func(context.Context, string, string) (retrieval.Result, error) { return retrieval.Result{}, nil }
	for _, tt := range []struct {
		c          Setup
		vs         string
		help, hint string
	}{
		{Setup{Setups: []string{"bm25"}, Retrieve: retrieve}, "bm25\x1b[2J", "split: A vs setup bm25", "choose one in the settings"},
		{Setup{Setups: []string{"bm25", "small"}}, "", "split vs a setup (--vs NAME, or s: compare with)", "(setups: bm25, small)."},
		{Setup{}, "", "split vs a setup (start with --vs NAME)", "Add a [setups.NAME] table to ragscope.toml"},
	} {
		if got := tt.c.KeyHelp(tt.vs); got != tt.help {
			t.Errorf("KeyHelp = %q, want %q", got, tt.help)
		}
		if got := tt.c.Hint(); !strings.Contains(got, tt.hint) {
			t.Errorf("Hint = %q, want it to contain %q", got, tt.hint)
		}
	}
}
