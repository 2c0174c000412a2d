package cli

import (
	"context"
	"fmt"

	"ragscope/app"
	"ragscope/config"
)

// providers is the provider table of this run (app.Providers() unless a
// test set another).
func (a *App) providers() app.Table {
	if a.Providers == nil {
		return app.Providers()
	}
	return a.Providers
}

// setup is the retrieval setup the resolved configuration describes.
func (a *App) setup() app.Setup { return app.FromConfig(a.Cfg) }

// assembler builds this run's pipelines: progress on standard error, the
// debug log.
func (a *App) assembler() *app.Assembler {
	return &app.Assembler{
		Providers: a.providers(),
		Dir:       a.Dir,
		Progress:  a.progress,
		Log:       a.debugLogger(),
		LogWriter: a.debugWriter(),
	}
}

// OpenBackend opens the configured setup once per run. selectionOnly
// skips what selected-text mode does not need (no index is built and no
// server is contacted, but the URL builder is configured).
func (a *App) OpenBackend(ctx context.Context, selectionOnly bool) (*app.Backend, error) {
	mode := app.Search
	if selectionOnly {
		mode = app.SelectionOnly
	}
	return a.open(ctx, mode)
}

// OpenStore opens the configured backend for a command that reads the
// store but embeds no question (stats, links): a Qdrant collection needs no
// embedding key, and when the embedder cannot be built a note says so.
func (a *App) OpenStore(ctx context.Context) (*app.Backend, error) {
	return a.open(ctx, app.StoreOnly)
}

func (a *App) open(ctx context.Context, mode app.Mode) (*app.Backend, error) {
	be, err := a.assembler().Open(ctx, a.setup(), mode)
	if err != nil {
		return nil, err
	}
	a.backends = append(a.backends, be)
	return be, nil
}

// header is the first line of human output: which backend answers.
func header(b *app.Backend) string {
	s := "ragscope · " + b.Label
	if b.Collection != "" && b.Kind == config.BackendQdrant {
		s += " · collection " + b.Collection
	}
	if b.Points >= 0 {
		s += fmt.Sprintf(" · %d chunks", b.Points)
	}
	if m := b.EmbedderLabel(); m != "" {
		s += " · " + m
	}
	if sl := b.SearchLabel(); sl != "" {
		s += " · " + sl
	}
	if r := b.RerankLabel(); r != "" {
		s += " · " + r
	}
	return cleanLine(s)
}

// progress shows msg on standard error while long work runs, when standard
// error is a terminal, and returns the func that clears it.
func (a *App) progress(msg string) func() {
	if !isTerminal(a.Stderr) {
		return func() {}
	}
	fmt.Fprint(a.Stderr, cleanLine(msg))
	return func() { fmt.Fprint(a.Stderr, "\r\x1b[K") }
}
