package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ragscope/ui/common"
	"ragscope/ui/evalview"
	"ragscope/ui/selection"
)

// place says where a pane is drawn.
type place int

const (
	// placeInput is the question box at the top (with the selection).
	placeInput place = iota
	// placeList is the left column (the results).
	placeList
	// placeSide is the right column, beside the list when the window is
	// wide, instead of it when narrow; one side pane shows at a time.
	placeSide
	// placeWhole is the whole body (the eval view).
	placeWhole
)

// ring names the tab orders a pane belongs to.
type ring uint8

const (
	ringNormal ring = 1 << iota
	ringSelected
	ringEval
)

// action is a key binding with what it does; its help text lives in the
// binding, so what help shows is what the key does.
type action struct {
	key *key.Binding
	do  func(m *Model) tea.Cmd
}

// slot registers a pane with the root: its focus name, the pane in the
// current model, where it is drawn, which tab orders hold it, the global
// key that focuses it, and keys that act on the root while it has focus.
type slot struct {
	id focusID
	// pane returns the pane in m.
	pane  func(m *Model) common.Pane
	place place
	// text says keys are text while it has focus: letter bindings are off.
	text bool
	// rings are the tab orders it belongs to (none: reached by its key).
	rings ring
	// open is the global key that focuses it (nil: none).
	open *key.Binding
	// actions are checked before the pane sees a key.
	actions []action
	// after runs after the pane handled a key (for example to show the
	// selected result in the detail pane in the same update).
	after func(m *Model) tea.Cmd
}

// register adds a pane to the explorer; its place in the list is its place
// in the tab order.
func (m *Model) register(s slot) {
	m.slots = append(m.slots, s)
	if len(m.slots) > 1 {
		m.syncBindings()
	}
}

// syncBindings turns the letter keys off while a text box has focus
// (they are text there, and vanish from the help), on elsewhere.
func (m *Model) syncBindings() {
	text := m.typing()
	m.keys.SetTextFocus(text)
	for i := range m.slots {
		if o := m.slots[i].open; o != nil && printable(*o) && o != &m.keys.Eval {
			o.SetEnabled(!text)
		}
	}
}

// slot returns the registered pane id (the first one when id is unknown).
func (m *Model) slot(id focusID) *slot {
	for i := range m.slots {
		if m.slots[i].id == id {
			return &m.slots[i]
		}
	}
	return &m.slots[0]
}

// registerPanes registers the explorer's panes in tab order.
func (m *Model) registerPanes() {
	k := m.keys
	run := []action{{&k.Run, (*Model).runAndLook}}
	marks := []action{
		{&k.MarkRelevant, func(m *Model) tea.Cmd { return m.markSelected(common.MarkRelevant) }},
		{&k.MarkNotRelevant, func(m *Model) tea.Cmd { return m.markSelected(common.MarkNotRelevant) }},
		{&k.MarkClear, func(m *Model) tea.Cmd { return m.markSelected(common.MarkNone) }},
		{&k.SaveCase, (*Model).saveCase},
	}
	m.register(slot{id: focusQuery, pane: func(m *Model) common.Pane { return m.query }, place: placeInput, text: true, rings: ringNormal | ringSelected, open: &k.FocusQuery, actions: run})
	m.register(slot{id: focusSelText, pane: func(m *Model) common.Pane { return selField{m.sel, selection.FieldText} }, place: placeInput, text: true, rings: ringSelected})
	m.register(slot{id: focusSelDoc, pane: func(m *Model) common.Pane { return selField{m.sel, selection.FieldDoc} }, place: placeInput, text: true, rings: ringSelected, actions: run})
	m.register(slot{id: focusSelSection, pane: func(m *Model) common.Pane { return selField{m.sel, selection.FieldSection} }, place: placeInput, text: true, rings: ringSelected, actions: run})
	m.register(slot{id: focusResults, pane: func(m *Model) common.Pane { return m.results }, place: placeList, rings: ringNormal | ringSelected,
		actions: append([]action{{&k.Open, func(m *Model) tea.Cmd { return m.setFocus(focusDetail) }}}, marks...), after: (*Model).followCursor})
	m.register(slot{id: focusDetail, pane: func(m *Model) common.Pane { return m.detail }, place: placeSide, rings: ringNormal | ringSelected, actions: marks})
	m.register(slot{id: focusContext, pane: func(m *Model) common.Pane { return m.ctxPane }, place: placeSide, rings: ringNormal | ringSelected, open: &k.Context})
	m.register(slot{id: focusTurns, pane: func(m *Model) common.Pane { return m.turns }, place: placeSide, rings: ringNormal | ringSelected, open: &k.Turns})
	m.register(slot{id: focusAnswer, pane: func(m *Model) common.Pane { return m.answer }, place: placeSide})
	m.register(slot{id: focusPage, pane: func(m *Model) common.Pane { return m.page }, place: placeSide})
	m.register(slot{id: focusChunks, pane: func(m *Model) common.Pane { return m.chunks }, place: placeSide})
	m.register(slot{id: focusSettings, pane: func(m *Model) common.Pane { return m.settings }, place: placeSide, open: &k.Settings})
	m.register(slot{id: focusEvalPath, pane: func(m *Model) common.Pane { return evalField{m.eval, true} }, place: placeWhole, text: true, rings: ringEval,
		actions: []action{{&k.Run, (*Model).startEval}}})
	m.register(slot{id: focusEvalCases, pane: func(m *Model) common.Pane { return evalField{m.eval, false} }, place: placeWhole, rings: ringEval,
		actions: []action{{&k.Open, (*Model).openCase}}})
}

// printable reports whether every key of b is a character (which a text
// box takes as text).
func printable(b key.Binding) bool {
	for _, k := range b.Keys() {
		if len([]rune(k)) != 1 {
			return false
		}
	}
	return len(b.Keys()) > 0
}

// selField is one field of the selection pane as a pane of its own: the
// selected text, the source doc or the section.
type selField struct {
	p     *selection.Model
	field int
}

// SetSize implements pane; the layout sizes the selection as a whole.
func (f selField) SetSize(int, int) tea.Cmd { return nil }

// Focus implements pane.
func (f selField) Focus() tea.Cmd { return f.p.Focus(f.field) }

// Blur implements pane.
func (f selField) Blur() { f.p.Blur() }

// Update implements pane.
func (f selField) Update(msg tea.Msg) tea.Cmd { return f.p.Update(msg) }

// View implements pane.
func (f selField) View() string { return f.p.View() }

// ShortHelp implements pane.
func (f selField) ShortHelp() []key.Binding {
	k := f.p.Keys
	if f.field == selection.FieldText {
		return []key.Binding{k.RunAny, k.NextPane, common.LeaveHelp(k, "results"), k.ToggleMode, k.Quit}
	}
	return []key.Binding{k.Run, k.NextPane, common.LeaveHelp(k, "results"), k.ToggleMode, k.Quit}
}

// FullHelp implements pane.
func (f selField) FullHelp() [][]key.Binding { return nil }

// evalField is the eval view's path input (input) or its case list.
type evalField struct {
	p     *evalview.Model
	input bool
}

// SetSize implements pane.
func (f evalField) SetSize(w, h int) tea.Cmd { f.p.SetSize(w, h); return nil }

// Focus implements pane.
func (f evalField) Focus() tea.Cmd { return f.p.Focus(f.input) }

// Blur implements pane.
func (f evalField) Blur() { f.p.Blur() }

// Update implements pane.
func (f evalField) Update(msg tea.Msg) tea.Cmd { return f.p.Update(msg) }

// View implements pane.
func (f evalField) View() string { return f.p.View() }

// ShortHelp implements pane.
func (f evalField) ShortHelp() []key.Binding {
	k := f.p.Keys
	leave := common.LeaveHelp(k, "results")
	if f.p.Running {
		leave = common.LeaveHelp(k, "cancel eval")
	}
	if f.input {
		return []key.Binding{common.RunHelp(k.Run, "enter", "run eval"), common.TabHelp(k, "cases"), leave, k.Quit}
	}
	return []key.Binding{k.Down, common.OpenHelp(k, "open as query"), common.RunHelp(k.RunAny, "ctrl+r", "re-run"), common.TabHelp(k, "set path"), leave, k.QuitQ, k.Help}
}

// FullHelp implements pane.
func (f evalField) FullHelp() [][]key.Binding { return nil }
