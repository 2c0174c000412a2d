package ui

import (
	"slices"

	"ragscope/retrieval"
	"ragscope/ui/settings"
)

// LocalSearchSetup offers the ways the demo and local indexes rank as the
// settings row "local search" (BM25 blended with the embedder, BM25
// alone, the embedder alone), so that one question can be asked in each
// mode without a restart and the turns compared. The explorer opens
// nothing for a mode: it names the mode in Query.SearchMode and the
// Retriever searches the index's view in that mode.
type LocalSearchSetup struct {
	// Modes are the modes offered, the default first; none hides the
	// row (a Qdrant collection ranks one way).
	Modes []string
	// Mode is the mode to start with ("" or one not offered: Modes[0]).
	Mode string
	// Label describes a mode for the header and the row ("hybrid
	// 0.8×cosine + 0.2×BM25 + title match", "BM25 + title match"); nil: its name.
	Label func(mode string) string
}

// initLocalSearch applies the local search setup to the new model: the
// starting mode and the settings row.
func (m *Model) initLocalSearch() {
	ls := m.opts.LocalSearch
	m.settings.SearchModes, m.settings.SearchLabel = ls.Modes, ls.Label
	m.settings.ExactOffered = m.opts.Backend.Kind == "qdrant"
	mode := ""
	m.turns.PlainSearch = ""
	if len(ls.Modes) > 0 {
		mode = ls.Modes[0]
		m.turns.PlainSearch = ls.Modes[0]
		if slices.Contains(ls.Modes, ls.Mode) {
			mode = ls.Mode
		}
	}
	m.params.SearchMode = mode
	m.settings.Params.SearchMode = mode
}

// searchModeFor is the search mode of a query in mode: the setting for a
// search, none for selected text (nothing is searched) or a backend
// without modes.
func (m *Model) searchModeFor(mode retrieval.Mode) string {
	if mode == retrieval.ModeSelectedText || len(m.opts.LocalSearch.Modes) == 0 {
		return ""
	}
	return m.params.SearchMode
}

// keepSearchMode is the search mode settings taken from elsewhere (a
// turn brought back, an eval case) leave: theirs when it is offered, else
// the one set now (a selected-text turn or a case names none), none on a
// backend without modes.
func (m *Model) keepSearchMode(s string) string {
	modes := m.opts.LocalSearch.Modes
	switch {
	case len(modes) == 0:
		return ""
	case slices.Contains(modes, s):
		return s
	}
	return m.params.SearchMode
}

// searchHeader is how the index ranks now, for the header's first line
// ("" on a backend without modes).
func (m *Model) searchHeader() string {
	if len(m.opts.LocalSearch.Modes) == 0 {
		return ""
	}
	return settings.SearchModeLabel(m.opts.LocalSearch.Label, m.params.SearchMode)
}

// Settings row of the local search.
