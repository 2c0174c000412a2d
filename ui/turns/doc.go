// Package turns is the explorer's turn list (t): the session's questions
// as chat turns, and the comparison of the turn under the cursor with the
// one on show (moved hits, settings, answers, expected sources).
package turns
