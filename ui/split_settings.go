package ui

import (
	"ragscope/termsafe"
)

// setCompare makes setup the split view's B ("" none): its ranking is
// asked for again on the next split.
func (m *Model) setCompare(setup string) {
	m.split.SetB(setup)
	m.settings.CompareWith = setup
	m.splitHelp()
	if setup == "" {
		m.setStatus(statusInfo, "The split compares with no setup now.")
		return
	}
	m.setStatus(statusOK, "V now splits the results: A "+termsafe.Line(m.split.Names[0])+" beside B "+termsafe.Line(setup)+".")
}
