package ui

import (
	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// askAnswer answers the turn on show (the Answer key): it shows the Answer
// pane and starts a generation, unless the turn's answer is streaming or
// done and the pane is not focused yet (then it only shows it).
func (m *Model) askAnswer() tea.Cmd {
	i := m.turns.At
	if i < 0 || i >= len(m.turns.Turns) {
		return m.setFocus(focusAnswer)
	}
	t := &m.turns.Turns[i]
	if t.Answer != nil && t.Answer.Phase != common.AnswerCancelled && t.Answer.Phase != common.AnswerFailed && m.focus != focusAnswer {
		return m.setFocus(focusAnswer)
	}
	focus := m.setFocus(focusAnswer)
	return tea.Batch(focus, m.answer.Start(t))
}

// autoAnswer starts the answer of the newest turn when the setting asks
// for it, showing the Answer pane beside the results unless a side pane
// has the keyboard (changing settings must not be interrupted).
func (m *Model) autoAnswer() tea.Cmd {
	if !m.answer.Auto || len(m.turns.Turns) == 0 {
		return nil
	}
	if m.slot(m.focus).place != placeSide {
		m.right = focusAnswer
	}
	return m.answer.Start(&m.turns.Turns[len(m.turns.Turns)-1])
}

// answerLeft cancels the generation in flight when the Answer pane leaves
// the side column (another side pane or the eval view replaced it).
func (m *Model) answerLeft() {
	if m.right != focusAnswer || m.slot(m.focus).place == placeWhole {
		m.answer.Cancel()
	}
}

// ShownAnswer returns the finished answer of the turn on show and the
// turn's result; ok is false when there is none yet (for tests).
func (m Model) ShownAnswer() (a retrieval.Answer, res retrieval.Result, ok bool) {
	p := m.answer
	if p.Shown == nil || p.Shown.Phase == common.AnswerStreaming {
		return retrieval.Answer{}, p.Res, false
	}
	return p.Shown.Final, p.Res, true
}

// Answering reports whether an answer is streaming (for tests).
func (m Model) Answering() bool { return m.answer.Streaming() }
