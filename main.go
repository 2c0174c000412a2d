// Command ragscope explores what a RAG system retrieves: ranked chunks,
// scores, citation URLs, grounded context and link health, in a terminal
// UI or from scripts. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"

	"ragscope/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), cli.StopSignals()...)
	code := cli.Main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
