package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/settings"
)

// typing reports whether keys go to a text box.
func (m *Model) typing() bool {
	if m.search.Typing() {
		return true
	}
	s := m.slot(m.focus)
	return s.text || common.IsModal(s.pane(m))
}

// inEval reports whether the eval view has the keyboard.
func (m *Model) inEval() bool { return m.slot(m.focus).rings&ringEval != 0 }

// globals are the keys that act wherever the focus is (letters only
// outside text boxes: their bindings are disabled while typing).
func (m *Model) globals() []action {
	k := m.keys
	// One allocation: the keys below and the panes' open keys.
	acts := make([]action, 0, 24+len(m.slots))
	acts = append(acts, []action{
		{&k.NextPane, func(m *Model) tea.Cmd { return m.cycleFocus(1) }},
		{&k.PrevPane, func(m *Model) tea.Cmd { return m.cycleFocus(-1) }},
		{&k.ToggleMode, (*Model).toggleMode},
		{&k.RunAny, func(m *Model) tea.Cmd {
			if m.inEval() {
				return m.startEval()
			}
			return m.runAndLook()
		}},
		{&k.Help, (*Model).toggleKeys},
		{&k.Leave, (*Model).leave},
		{&k.Eval, (*Model).openEval},
		{&k.Dropped, func(m *Model) tea.Cmd {
			next, cmd := m.updateSettings(settings.ChangedMsg{Params: m.params, ToggleDropped: true})
			*m = next.(Model)
			return cmd
		}},
		{&k.Rerank, (*Model).toggleRerank},
		{&k.CopyURL, (*Model).copyURL},
		{&k.CopyContext, (*Model).copyContext},
		{&k.OpenURL, (*Model).openURL},
		{&k.Search, (*Model).startSearch},
		{&k.Answer, (*Model).askAnswer},
		{&k.Page, (*Model).openPage},
		{&k.Chunks, (*Model).openChunks},
		{&k.Expect, (*Model).openExpect},
		{&k.ANNCheck, (*Model).runANNCheck},
		{&k.Split, (*Model).toggleSplit},
		{&k.Judge, (*Model).startJudge},
		{&k.Explain, (*Model).explainSelected},
		{&k.Edit, (*Model).editSelected},
	}...)
	for i := range m.slots {
		if s := &m.slots[i]; s.open != nil {
			id := s.id
			acts = append(acts, action{s.open, func(m *Model) tea.Cmd { return m.setFocus(id) }})
		}
	}
	return acts
}

// updateKey handles global keys, then gives the key to the focused pane.
func (m *Model) updateKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.whatif.Editing() {
		return m.updateEditArea(msg)
	}
	if key.Matches(msg, k.Quit, k.QuitQ) {
		m.stop()
		return tea.Quit
	}
	if m.tooSmall() {
		return nil
	}
	if m.confirmSave != 0 && !key.Matches(msg, k.SaveCase) {
		m.confirmSave = 0
		m.setStatus(statusInfo, "Not replaced: the golden file keeps its case.")
	}
	if cmd, ok := m.updateSearchKey(msg); ok {
		return cmd
	}
	if m.focus == focusResults && m.results.Pick != nil {
		return m.updatePicker(msg)
	}
	if common.IsModal(m.slot(m.focus).pane(m)) {
		cmd := m.updateFocused(msg)
		m.syncBindings()
		return cmd
	}
	if m.fullHelp && !m.typing() && m.keyHelp.Scroll(k, msg) {
		return nil
	}
	for _, a := range m.globals() {
		if key.Matches(msg, *a.key) {
			cmd := a.do(m)
			return cmd
		}
	}
	return m.updateFocused(msg)
}

// updatePaste puts pasted text in the text box it is meant for.
func (m *Model) updatePaste(msg tea.PasteMsg) tea.Cmd {
	if m.tooSmall() {
		return nil
	}
	if m.search.Typing() {
		return m.editSearch(msg)
	}
	var cmd tea.Cmd
	if !m.typing() {
		target := focusQuery
		if m.mode == retrieval.ModeSelectedText {
			target = focusSelText
		}
		cmd = m.setFocus(target)
	}
	before := m.askChars()
	cmd = tea.Batch(cmd, m.slot(m.focus).pane(m).Update(msg))
	m.notePasteCut(before, msg.Content)
	return cmd
}

// updateFocused gives a key to the focused pane only, after the keys its
// registration binds to the root.
func (m *Model) updateFocused(msg tea.KeyPressMsg) tea.Cmd {
	s := m.slot(m.focus)
	for _, a := range s.actions {
		if key.Matches(msg, *a.key) {
			cmd := a.do(m)
			return cmd
		}
	}
	p := s.pane(m)
	cmd := p.Update(msg)
	if common.IsModal(p) {
		m.syncBindings()
	}
	if s.after != nil {
		cmd = tea.Batch(cmd, s.after(m))
	}
	return cmd
}

// ring is the tab order for the current view and mode, in registration
// order.
func (m *Model) ring() []focusID {
	want := ringNormal
	switch {
	case m.inEval():
		want = ringEval
	case m.split.Open:
		want = ringSplit
	case m.mode == retrieval.ModeSelectedText:
		want = ringSelected
	}
	var ids []focusID
	for _, s := range m.slots {
		if s.rings&want != 0 {
			ids = append(ids, s.id)
		}
	}
	return ids
}

// cycleFocus moves the focus dir steps along the ring; from a pane
// outside the ring (settings) it enters at the end.
func (m *Model) cycleFocus(dir int) tea.Cmd {
	ring := m.ring()
	i := -1
	for j, f := range ring {
		if f == m.focus {
			i = j
		}
	}
	if i < 0 {
		i = len(ring) - 1
		if dir < 0 {
			i = len(ring)
		}
	}
	i = ((i+dir)%len(ring) + len(ring)) % len(ring)
	return m.setFocus(ring[i])
}

// leave is esc: from a right pane back to the results, from the results
// or a text box to the results as well (letters become commands again).
func (m *Model) leave() tea.Cmd {
	if m.fullHelp {
		m.fullHelp = false
		return m.layout()
	}
	if m.inEval() && m.evals.Running() {
		m.cancelEval()
		return nil
	}
	if m.judging.Busy() && !m.inEval() {
		m.cancelJudge(true)
		return nil
	}
	if m.inSplit() {
		return m.splitLeave()
	}
	if m.focus == focusResults {
		return m.setFocus(focusQuery)
	}
	if m.focus == focusPage {
		return m.closePage()
	}
	if m.focus == focusChunks {
		return m.closeChunks()
	}
	return m.setFocus(focusResults)
}

// setFocus moves the keyboard to f, updating what the side column shows
// and which bindings are live.
func (m *Model) setFocus(f focusID) tea.Cmd {
	s := m.slot(m.splitFocus(f))
	m.focus = s.id
	if s.place == placeSide {
		m.right = s.id
	}
	m.answerLeft()
	m.syncBindings()
	for i := range m.slots {
		m.slots[i].pane(m).Blur()
	}
	return tea.Batch(s.pane(m).Focus(), m.layout())
}

// toggleMode switches between normal and selected-text mode.
func (m *Model) toggleMode() tea.Cmd {
	if m.mode == retrieval.ModeNormal {
		m.mode = retrieval.ModeSelectedText
		m.setStatus(statusInfo, "Selected-text mode: paste text, type a question, ctrl+r runs. No vector search. ctrl+t goes back.")
		return m.setFocus(focusSelText)
	}
	m.mode = retrieval.ModeNormal
	m.setStatus(statusInfo, "Normal mode: questions are embedded and searched.")
	return m.setFocus(focusQuery)
}
