package ui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/answer"
	"ragscope/ui/common"
)

// answerLine sums up a turn's answer in one line for the turn comparison.
func answerLine(t *common.Turn) string {
	st := t.Answer
	if st == nil {
		return "not asked"
	}
	a := st.Answer()
	if a.Refused {
		return "refused (nothing sent: the context was insufficient)"
	}
	var s string
	switch st.Phase {
	case common.AnswerStreaming:
		s = "streaming · "
	case common.AnswerCancelled:
		s = "cancelled · "
	case common.AnswerFailed:
		s = "failed · "
	}
	if len(a.Cited) == 0 {
		s += "cites nothing"
	} else {
		cited := make([]string, len(a.Cited))
		for i, r := range a.Cited {
			cited[i] = strconv.Itoa(r)
		}
		s += "cites [" + strings.Join(cited, ",") + "]"
	}
	if n := len(a.Warnings(st.Sufficient)); n > 0 && st.Phase == common.AnswerDone {
		s += " · " + present.Count(n, "warning", "warnings")
	}
	if st.Faith != nil {
		s += " · " + answer.FaithLine(st.Faith)
	}
	if text := termsafe.Line(a.Annotated()); text != "" {
		s += " · " + text
	}
	return s
}

// askAnswer answers the turn on show (the Answer key): it shows the Answer
// pane and starts a generation, unless the turn's answer is streaming or
// done and the pane is not focused yet (then it only shows it).
func (m *Model) askAnswer() tea.Cmd {
	i := m.turns.current
	if i < 0 || i >= len(m.turns.turns) {
		return m.setFocus(focusAnswer)
	}
	t := &m.turns.turns[i]
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
	if !m.answer.Auto || len(m.turns.turns) == 0 {
		return nil
	}
	if m.slot(m.focus).place != placeSide {
		m.right = focusAnswer
	}
	return m.answer.Start(&m.turns.turns[len(m.turns.turns)-1])
}

// answerCompare is the turn comparison's line for each turn's answer.
func answerCompare(cur, old *common.Turn, w int) string {
	return common.Truncate("answer #"+strconv.Itoa(cur.N)+": "+answerLine(cur), w) + "\n" +
		common.Truncate("answer #"+strconv.Itoa(old.N)+": "+answerLine(old), w) + "\n"
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
