package cli

import (
	"context"
	"fmt"

	"ragscope/retrieval"
)

func (a *App) openQdrant(ctx context.Context, selectionOnly bool) (*Backend, error) {
	return nil, fmt.Errorf("%w: the Qdrant backend is not wired yet", retrieval.ErrConfig)
}
