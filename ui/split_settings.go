package ui

import (
	"slices"

	"ragscope/termsafe"
)

// compareChangedMsg says the settings chose another setup B for the split
// view ("" none).
type compareChangedMsg struct{ Setup string }

// adjustCompare steps the "compare with" row round none and the setups.
func (p *settingsPane) adjustCompare(up bool) {
	choices := append([]string{""}, p.compareSetups...)
	i := max(slices.Index(choices, p.compareWith), 0)
	if up {
		i = (i + 1) % len(choices)
	} else {
		i = (i - 1 + len(choices)) % len(choices)
	}
	p.compareWith = choices[i]
}

// compareValue is the "compare with" row's value.
func (p *settingsPane) compareValue() string {
	if p.compareWith == "" {
		return "‹ none › " + p.Styles.Meta.Render("(V splits the results with the setup chosen)")
	}
	return "‹ " + termsafe.Line(p.compareWith) + " › " + p.Styles.Meta.Render("(V splits the results: A beside it)")
}

// setCompare makes setup the split view's B ("" none): its ranking is
// asked for again on the next split.
func (m *Model) setCompare(setup string) {
	m.split.stop()
	m.split.names[1] = setup
	m.split.half[1], m.split.err, m.split.bQuestion, m.split.bSetup = splitHalf{}, nil, "", ""
	m.settings.compareWith = setup
	m.splitHelp()
	if setup == "" {
		m.setStatus(statusInfo, "The split compares with no setup now.")
		return
	}
	m.setStatus(statusOK, "V now splits the results: A "+termsafe.Line(m.split.names[0])+" beside B "+termsafe.Line(setup)+".")
}
