package cli

import (
	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/local"
	"ragscope/ui"
)

// tuiLocalSearch offers the demo's and a local index's search modes in
// the explorer's settings, starting with the configured one
// (--local-search); each question names its mode and the pipeline
// searches the index's view in it (local.Index.WithMode). A Qdrant
// collection ranks one way: nothing is offered.
func (a *App) tuiLocalSearch(be *Backend) ui.LocalSearchSetup {
	if be.Pipeline == nil {
		return ui.LocalSearchSetup{}
	}
	if _, ok := be.Pipeline.Store.(retrieval.ModalStore); !ok {
		return ui.LocalSearchSetup{}
	}
	return ui.LocalSearchSetup{
		Modes: config.LocalSearchModes(),
		Mode:  a.Cfg.LocalSearch,
		Label: func(mode string) string { return local.SearchMode(mode).Describe() },
	}
}

// tuiModelLabel is the header's model part: the embedder, and how a
// local index searches unless the explorer shows the mode it searches
// in (it changes with the settings).
func tuiModelLabel(be *Backend, ls ui.LocalSearchSetup) string {
	if len(ls.Modes) > 0 {
		return be.EmbedderLabel()
	}
	return joinLabel(be.EmbedderLabel(), be.Search)
}
