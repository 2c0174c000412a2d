package ui

import (
	"unicode/utf8"

	"ragscope/present"
)

// askChars is the length of the question in the Ask box, in characters.
func (m *Model) askChars() int { return utf8.RuneCountInString(m.query.Value()) }

// notePasteCut says in the status line when a paste into the Ask box did
// not fit its limit: before is the question's length before the paste.
func (m *Model) notePasteCut(before int, pasted string) {
	if m.focus != focusQuery {
		return
	}
	if note := pasteCutNote(before, m.askChars(), utf8.RuneCountInString(pasted), m.query.Input.CharLimit, m.keys.ToggleMode.Help().Key); note != "" {
		m.setStatus(statusErr, note)
	}
}

// pasteCutNote is the status for a paste of pasted characters into a box
// of limit characters that held before and holds after it; "" when
// nothing was left out.
func pasteCutNote(before, after, pasted, limit int, modeKey string) string {
	if limit <= 0 || after < limit || before+pasted <= limit {
		return ""
	}
	return "Paste cut: a question is embedded up to " + present.Int(limit) + " characters, all the Ask box holds, and " +
		present.Int(before+pasted-after) + " did not fit. To ground on long text, use selected-text mode (" + modeKey + ")."
}
