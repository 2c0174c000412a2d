package ui

import (
	"slices"
	"strconv"

	"ragscope/retrieval"
	"ragscope/termsafe"
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
	m.settings.searchModes, m.settings.searchLabel = ls.Modes, ls.Label
	m.settings.exactOffered = m.opts.Backend.Kind == "qdrant"
	mode := ""
	m.turns.plainSearch = ""
	if len(ls.Modes) > 0 {
		mode = ls.Modes[0]
		m.turns.plainSearch = ls.Modes[0]
		if slices.Contains(ls.Modes, ls.Mode) {
			mode = ls.Mode
		}
	}
	m.params.SearchMode = mode
	m.settings.params.SearchMode = mode
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

// searchModeLabel describes mode with label, or by its name.
func searchModeLabel(label func(string) string, mode string) string {
	if label == nil {
		return termsafe.Line(mode)
	}
	return termsafe.Line(label(mode))
}

// searchHeader is how the index ranks now, for the header's first line
// ("" on a backend without modes).
func (m *Model) searchHeader() string {
	if len(m.opts.LocalSearch.Modes) == 0 {
		return ""
	}
	return searchModeLabel(m.opts.LocalSearch.Label, m.params.SearchMode)
}

// searchModeDiff says how two queries' search modes differ, for the turn
// comparison ("" when alike or when one of them searched nothing).
func searchModeDiff(a, b retrieval.Query) string {
	if a.SearchMode == b.SearchMode || a.SearchMode == "" || b.SearchMode == "" {
		return ""
	}
	return "local search " + termsafe.Line(a.SearchMode) + "→" + termsafe.Line(b.SearchMode)
}

// searchModeTag marks a turn searched in another mode than the default
// plain in the turn list ("[bm25] ").
func searchModeTag(mode, plain string) string {
	if mode == "" || mode == plain {
		return ""
	}
	return "[" + termsafe.Line(mode) + "] "
}

// Settings row of the local search.

// shown reports whether settings row r is drawn: the local search row
// only when the backend offers modes.
func (p *settingsPane) shown(r int) bool {
	return (r != rowLocalSearch || len(p.searchModes) > 0) && (r != rowExact || p.exactOffered) && (r != rowCompare || len(p.compareSetups) > 0)
}

// move puts the cursor on the next shown row in direction d (±1), if any.
func (p *settingsPane) move(d int) {
	for r := p.row + d; r >= 0 && r < settingsRows; r += d {
		if p.shown(r) {
			p.row = r
			return
		}
	}
}

// adjustSearchMode steps the local search mode, round the modes.
func (p *settingsPane) adjustSearchMode(up bool) {
	n := len(p.searchModes)
	if n == 0 {
		return
	}
	i := slices.Index(p.searchModes, p.params.SearchMode)
	switch {
	case i < 0:
		i = 0
	case up:
		i = (i + 1) % n
	default:
		i = (i - 1 + n) % n
	}
	p.params.SearchMode = p.searchModes[i]
}

// searchModeValue draws the local search row's value.
func (p *settingsPane) searchModeValue() string {
	mode := p.params.SearchMode
	i := slices.Index(p.searchModes, mode)
	return "‹ " + termsafe.Line(mode) + " › " + p.Styles.Meta.Render("("+strconv.Itoa(i+1)+"/"+strconv.Itoa(len(p.searchModes))+") "+searchModeLabel(p.searchLabel, mode))
}
