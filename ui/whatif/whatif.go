// Package whatif is the explorer's "why this score" (key X) and what-if
// editor (key E): which row they act on, the commands that take a score
// apart, hand a chunk's text to $EDITOR or to a text area and rank the
// edit among the question's candidates, and the text area itself. The
// root routes its messages and shows the outcome in the results.
package whatif

import (
	"cmp"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/ui/common"
)

// Setup offers "why this score" on the selected row (key X: the
// question's words against the chunk, the score taken apart, the
// suggestions, as `query --explain` prints them) and the what-if editor
// (key E: the chunk's text in $EDITOR, or in a text area without one;
// on save the list shows the edit's would-be row at its rank). Zero
// hides both.
type Setup struct {
	// Explain takes chunk id's score for q apart; exp is the expected
	// source when the row is one (nil for a hit).
	// top is the #1 hit's id, which an expected source is set beside.
	Explain func(ctx context.Context, q retrieval.Query, id string, exp *retrieval.Expected, top string) (*explain.Explanation, error)
	// Chunk reads chunk id of the page at docPath (an expected row holds
	// no text).
	Chunk func(ctx context.Context, id, docPath string) (retrieval.Chunk, error)
	// WhatIf ranks chunk id with text instead of its own, among q's
	// current candidates; from is where the chunk is now (its rank and
	// score); nothing is written.
	WhatIf func(ctx context.Context, q retrieval.Query, id string, exp *retrieval.Expected, text string) (explain.WhatIf, error)
	// Editor is the command that edits a file ($EDITOR); "" edits in a
	// text area.
	Editor string
}

// ExplainedMsg carries the explanation of chunk ID of turn N.
type ExplainedMsg struct {
	N, Seq int
	ID     string
	E      *explain.Explanation
	Err    error
}

// ReadyMsg carries the chunk to edit, its text written to Path for the
// editor ("" for the text area).
type ReadyMsg struct {
	N, Seq int
	Target Target
	Path   string
	Err    error
}

// EditedMsg says the editor closed (Err when it failed).
type EditedMsg struct {
	N, Seq int
	Target Target
	Path   string
	Err    error
}

// RankedMsg carries an edit's would-be rank.
type RankedMsg struct {
	N, Seq int
	Target Target
	W      explain.WhatIf
	Err    error
}

// Target is the row explained or edited.
type Target struct {
	// ID is the chunk's point id.
	ID string
	// Exp is the expected source the row is (nil for a hit); From is
	// where the chunk is now, for a hit made from its rank and score.
	Exp, From *retrieval.Expected
	// Chunk is the row's chunk (no text for an expected source's row).
	Chunk retrieval.Chunk
}

// Select is the target of row it of turn t (ok false: nothing is
// selected), or, when the row has none, why: the sentence to show; what
// names the feature ("why this score").
func Select(what string, t *common.Turn, it common.Item, ok bool) (tg Target, why string) {
	switch {
	case t == nil || !ok:
		return Target{}, "Ask a question and select a result first: " + what + " acts on the selected row."
	case t.Query.Mode == retrieval.ModeSelectedText:
		return Target{}, "Selected text searches nothing: " + what + " explains a search."
	case it.WhatIf != nil:
		return Target{}, "That row is your edit's would-be rank: select the chunk itself."
	case it.Pseudo && (it.Expect == nil || it.Expect.PointID == ""):
		return Target{}, "The expected source is not in the collection: there is no chunk to explain."
	}
	tg = Target{ID: it.Hit.Chunk.ID, Chunk: it.Hit.Chunk}
	if it.Expect != nil {
		tg.Exp, tg.From = it.Expect, it.Expect
		tg.ID = it.Expect.PointID
	} else {
		score := it.Hit.Score
		tg.From = &retrieval.Expected{Ref: cmp.Or(it.Hit.Chunk.DocPath, it.Hit.Chunk.ID), PointID: it.Hit.Chunk.ID, DocPath: it.Hit.Chunk.DocPath, Rank: it.Hit.Rank, Score: &score}
	}
	if it.Pseudo {
		tg.Chunk = retrieval.Chunk{}
	}
	return tg, ""
}

// Model is the explanation and the edit in flight: which replies count
// and the text area while it is open.
type Model struct {
	setup   Setup
	base    context.Context
	timeout time.Duration
	// explainSeq and editSeq are the explanation and the edit whose
	// replies count.
	explainSeq, editSeq int
	area                *Area
}

// New is the model of setup; its commands run under base, each bounded
// by timeout (0: no limit).
func New(base context.Context, setup Setup, timeout time.Duration) *Model {
	return &Model{setup: setup, base: base, timeout: timeout}
}

// SetSetup takes the setup of a backend opened after the first frame.
func (m *Model) SetSetup(setup Setup) { m.setup = setup }

// Explain takes tg's score apart for turn t (key X).
func (m *Model) Explain(t *common.Turn, tg Target) tea.Cmd {
	ctx, cancel := common.WithTimeout(m.base, m.timeout)
	m.explainSeq++
	n, seq, q, fn := t.N, m.explainSeq, t.Query, m.setup.Explain
	top := ""
	if len(t.Result.Hits) > 0 {
		top = t.Result.Hits[0].Chunk.ID
	}
	return func() tea.Msg {
		defer cancel()
		e, err := fn(ctx, q, tg.ID, tg.Exp, top)
		return ExplainedMsg{N: n, Seq: seq, ID: tg.ID, E: e, Err: err}
	}
}

// Counts reports whether the explanation msg is the latest one asked for
// turn n, the turn on show.
func (m *Model) Counts(msg ExplainedMsg, n int) bool {
	return msg.N == n && msg.Seq == m.explainSeq
}

// Edit reads tg's text for turn n and, with an editor, writes it to a
// temporary file (key E).
func (m *Model) Edit(n int, tg Target) tea.Cmd {
	ctx, cancel := common.WithTimeout(m.base, m.timeout)
	m.editSeq++
	seq, editor, read := m.editSeq, m.setup.Editor, m.setup.Chunk
	return func() tea.Msg {
		defer cancel()
		if tg.Chunk.Text == "" && read != nil && tg.Exp != nil {
			c, err := read(ctx, tg.ID, tg.Exp.DocPath)
			if err != nil {
				return ReadyMsg{N: n, Seq: seq, Err: err}
			}
			tg.Chunk = c
		}
		if tg.Chunk.Text == "" {
			return ReadyMsg{N: n, Seq: seq, Err: errors.New("the chunk's text cannot be read")}
		}
		if editor == "" {
			return ReadyMsg{N: n, Seq: seq, Target: tg}
		}
		path, err := writeTemp(tg.Chunk.Text)
		return ReadyMsg{N: n, Seq: seq, Target: tg, Path: path, Err: err}
	}
}

// writeTemp writes text to a new temporary file for the editor; nothing
// is left when it fails.
func writeTemp(text string) (string, error) {
	f, err := os.CreateTemp("", "ragscope-whatif-*.md")
	if err != nil {
		return "", err
	}
	_, werr := f.WriteString(text)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", werr
	}
	return f.Name(), nil
}

// Step is what a what-if message or key led to, for the root to show.
type Step int

// The steps.
const (
	// None: nothing to show (a stale reply, the editor started, a key
	// typed in the area).
	None Step = iota
	// Failed: the step's error says why.
	Failed
	// Opened: the text area opened on the chunk.
	Opened
	// Ranking: the edit is being ranked.
	Ranking
	// Left: the area closed without ranking.
	Left
	// Quit: ctrl+c in the area.
	Quit
)

// Ready takes the chunk to edit: the text area opens on it, or the
// program hands the file to the editor and waits for it; a stale reply's
// file is removed.
func (m *Model) Ready(msg ReadyMsg) (Step, tea.Cmd, error) {
	if msg.Seq != m.editSeq {
		if msg.Path != "" {
			return None, RemoveFile(msg.Path), nil
		}
		return None, nil, nil
	}
	if msg.Err != nil {
		return Failed, nil, msg.Err
	}
	if msg.Path == "" {
		m.area = newArea(msg)
		return Opened, m.area.ta.Focus(), nil
	}
	fields := strings.Fields(m.setup.Editor)
	c := exec.Command(fields[0], append(fields[1:], msg.Path)...)
	return None, tea.ExecProcess(c, func(err error) tea.Msg {
		return EditedMsg{N: msg.N, Seq: msg.Seq, Target: msg.Target, Path: msg.Path, Err: err}
	}), nil
}

// RemoveFile removes a temporary file.
func RemoveFile(path string) tea.Cmd {
	return func() tea.Msg {
		os.Remove(path)
		return nil
	}
}

// QueryOf is the query of turn n, nil when the turn is gone.
type QueryOf func(n int) *retrieval.Query

// Edited takes the editor's exit: the saved text is ranked against its
// turn's query; a stale or failed edit, or one whose turn is gone,
// removes its file.
func (m *Model) Edited(msg EditedMsg, queryOf QueryOf) (Step, tea.Cmd, error) {
	if msg.Seq != m.editSeq {
		return None, RemoveFile(msg.Path), nil
	}
	if msg.Err != nil {
		return Failed, RemoveFile(msg.Path), msg.Err
	}
	path := msg.Path
	return m.rank(queryOf, msg.N, msg.Seq, msg.Target, func() (string, error) {
		defer os.Remove(path)
		b, err := os.ReadFile(path)
		return string(b), err
	}, path)
}

// rank ranks the edited text text() gives against the query of turn n;
// path is the edit's file ("" for none), removed when the turn is gone.
func (m *Model) rank(queryOf QueryOf, n, seq int, tg Target, text func() (string, error), path string) (Step, tea.Cmd, error) {
	q := queryOf(n)
	if q == nil {
		if path != "" {
			return None, RemoveFile(path), nil
		}
		return None, nil, nil
	}
	ctx, cancel := common.WithTimeout(m.base, m.timeout)
	fn := m.setup.WhatIf
	return Ranking, func() tea.Msg {
		defer cancel()
		s, err := text()
		if err == nil && strings.TrimSpace(s) == "" {
			err = errors.New("the edited text is empty")
		}
		if err != nil {
			return RankedMsg{N: n, Seq: seq, Target: tg, Err: err}
		}
		if s == tg.Chunk.Text {
			return RankedMsg{N: n, Seq: seq, Target: tg, Err: errors.New("the text did not change")}
		}
		tg.Chunk.Text = s
		w, err := fn(ctx, *q, tg.ID, tg.From, s)
		return RankedMsg{N: n, Seq: seq, Target: tg, W: w, Err: err}
	}, nil
}

// Shows reports whether the ranked edit msg is the latest one, of turn
// n, the turn on show.
func (m *Model) Shows(msg RankedMsg, n int) bool {
	return msg.N == n && msg.Seq == m.editSeq
}
