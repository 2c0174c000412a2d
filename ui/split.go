package ui

import (
	"cmp"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/split"
)

// The split view (key V) sets the result of the
// question on show (setup A) beside another named setup's (B) for the
// same question: two ranked lists whose rows say how their source moved
// from A to B (present.SourceMoves: doc path and anchor, else URL; never
// chunk id).

// CompareSetup offers the split view (split.Setup).
type CompareSetup = split.Setup

// Focus names of the split view's two sides.
const (
	focusSplitA focusID = "split A"
	focusSplitB focusID = "split B"
)

// ringSplit is the tab order while the split is open: the question box
// and the two sides.
const ringSplit ring = 1 << 3

// registerSplit registers the split view's two sides; the question box
// is in the split's tab order too (a new question keeps the split).
func (m *Model) registerSplit() {
	k := m.keys
	side := func() []action {
		return []action{
			{&k.Open, func(m *Model) tea.Cmd { return m.split.OpenDetail() }},
			{&k.Dec, func(m *Model) tea.Cmd { return m.splitSide(focusSplitA) }},
			{&k.Inc, func(m *Model) tea.Cmd { return m.splitSide(focusSplitB) }},
		}
	}
	m.register(slot{id: focusSplitA, pane: func(m *Model) common.Pane { return m.split.Pane(0) }, place: placeWhole, rings: ringSplit, actions: side()})
	m.register(slot{id: focusSplitB, pane: func(m *Model) common.Pane { return m.split.Pane(1) }, place: placeWhole, rings: ringSplit, actions: side()})
	m.slot(focusQuery).rings |= ringSplit
}

// initSplit takes the setups to compare from the options and says in the
// split key's help what it compares, or how to get a setup to compare
// with.
func (m *Model) initSplit() {
	c := m.opts.Compare
	m.split.Names = [2]string{cmp.Or(c.Name, "default"), c.Vs}
	m.settings.CompareSetups, m.settings.CompareWith = c.Setups, c.Vs
	m.splitHelp()
}

// splitHelp says in the split key's help what it compares, or how to get
// a setup to compare with.
func (m *Model) splitHelp() {
	m.keys.Split.SetHelp("V", m.opts.Compare.KeyHelp(m.split.Names[1]))
}

// inSplit reports whether a side of the split has the keyboard.
func (m *Model) inSplit() bool { return m.focus == focusSplitA || m.focus == focusSplitB }

// toggleSplit opens the split on the question on show, or closes it.
func (m *Model) toggleSplit() tea.Cmd {
	if m.inSplit() {
		return m.closeSplit()
	}
	c := m.opts.Compare
	switch {
	case c.Retrieve == nil || m.split.Names[1] == "":
		m.setStatus(statusErr, c.Hint())
		return nil
	case m.mode == retrieval.ModeSelectedText:
		m.setStatus(statusErr, "The split compares searches: ctrl+t back to normal mode first.")
		return nil
	}
	m.split.Open, m.split.Showing = true, false
	id := focusSplitA
	if m.split.Side == 1 {
		id = focusSplitB
	}
	m.setStatus(statusInfo, "Split: A "+m.split.Names[0]+" vs B "+m.split.Names[1]+" · marks say how each source moved from A to B · V or esc closes.")
	return tea.Batch(m.setFocus(id), m.splitFollow())
}

// splitFollow shows the turn on show as side A and asks B for its
// question when the split is open.
func (m *Model) splitFollow() tea.Cmd {
	if !m.split.Open {
		return nil
	}
	m.split.SetA(m.turns.Current())
	return m.split.Start(m.base, m.opts.Timeout, m.opts.Compare.Retrieve)
}

// closeSplit closes the split and gives the keyboard to the results.
func (m *Model) closeSplit() tea.Cmd {
	m.split.Stop()
	m.split.Open, m.split.Showing = false, false
	m.right = focusDetail
	return m.setFocus(focusResults)
}

// splitSide moves the keyboard to a side of the split.
func (m *Model) splitSide(id focusID) tea.Cmd {
	if m.split.Showing {
		return nil
	}
	return m.setFocus(id)
}

// splitClick focuses the side clicked at (x, y) of the body and selects
// the row there.
func (m *Model) splitClick(x, y int) tea.Cmd {
	if m.split.Showing {
		return nil
	}
	if m.split.Click(x, y) == 1 {
		return m.setFocus(focusSplitB)
	}
	return m.setFocus(focusSplitA)
}

// splitLeave is esc in the split: from a row's detail back to the rows,
// from the rows out of the split.
func (m *Model) splitLeave() tea.Cmd {
	if m.split.Showing {
		m.split.Showing = false
		return nil
	}
	return m.closeSplit()
}

// splitFocus is where focus f goes while the split is open: the results
// are the split's side, the question box keeps the split, any other pane
// closes it. It also turns off the keys that act on the results alone.
func (m *Model) splitFocus(f focusID) focusID {
	if m.split.Open {
		switch f {
		case focusResults:
			f = focusSplitA
			if m.split.Side == 1 {
				f = focusSplitB
			}
		case focusQuery, focusSplitA, focusSplitB:
		default:
			m.split.Stop()
			m.split.Open, m.split.Showing = false, false
		}
	}
	m.keys.SplitOn = f == focusSplitA || f == focusSplitB
	return f
}

// updateSplit shows B's reply.
func (m *Model) updateSplit(msg split.Msg) tea.Cmd {
	m.split.Reply(msg)
	return nil
}

// actionItem is the row the copy and open keys act on: the split's when
// it has the keyboard, else the results'.
func (m *Model) actionItem() (common.Item, bool) {
	if m.inSplit() {
		r, ok := m.split.SelectedRow()
		return common.Item{Hit: r.Hit}, ok
	}
	return m.results.Selected()
}

// SplitRows returns the split view's rows, side A then B, each as "rank
// source mark" (for tests).
func (m Model) SplitRows() [2][]string { return m.split.RowTexts() }
