package ui

import (
	"cmp"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/ui/common"
)

// ExplainSetup offers "why this score" on the selected row (key X: the
// question's words against the chunk, the score taken apart, the
// suggestions, as `query --explain` prints them) and the what-if editor
// (key E: the chunk's text in $EDITOR, or in a text area without one;
// on save the list shows the edit's would-be row at its rank). Zero
// hides both.
type ExplainSetup struct {
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

// explainedMsg carries the explanation of chunk ID of turn N.
type explainedMsg struct {
	N, Seq int
	ID     string
	E      *explain.Explanation
	Err    error
}

// editReadyMsg carries the chunk to edit, its text written to Path for
// the editor ("" for the text area).
type editReadyMsg struct {
	N, Seq int
	Target editTarget
	Path   string
	Err    error
}

// editedMsg says the editor closed (Err when it failed).
type editedMsg struct {
	N, Seq int
	Target editTarget
	Path   string
	Err    error
}

// whatIfMsg carries an edit's would-be rank.
type whatIfMsg struct {
	N, Seq int
	Target editTarget
	W      explain.WhatIf
	Err    error
}

// editTarget is the row being edited.
type editTarget struct {
	id string
	// exp is the expected source the row is (nil for a hit); from is
	// where the chunk is now, for a hit made from its rank and score.
	exp, from *retrieval.Expected
	chunk     retrieval.Chunk
}

// selectedTarget is the selected row's chunk, or why it has none.
func (m *Model) selectedTarget(what string) (editTarget, *common.Turn, bool) {
	t := m.turns.Current()
	it, ok := m.results.Selected()
	switch {
	case t == nil || !ok:
		m.setStatus(statusErr, "Ask a question and select a result first: "+what+" acts on the selected row.")
		return editTarget{}, nil, false
	case t.Query.Mode == retrieval.ModeSelectedText:
		m.setStatus(statusErr, "Selected text searches nothing: "+what+" explains a search.")
		return editTarget{}, nil, false
	case it.WhatIf != nil:
		m.setStatus(statusErr, "That row is your edit's would-be rank: select the chunk itself.")
		return editTarget{}, nil, false
	case it.Pseudo && (it.Expect == nil || it.Expect.PointID == ""):
		m.setStatus(statusErr, "The expected source is not in the collection: there is no chunk to explain.")
		return editTarget{}, nil, false
	}
	tg := editTarget{id: it.Hit.Chunk.ID, chunk: it.Hit.Chunk}
	if it.Expect != nil {
		tg.exp, tg.from = it.Expect, it.Expect
		tg.id = it.Expect.PointID
	} else {
		score := it.Hit.Score
		tg.from = &retrieval.Expected{Ref: cmp.Or(it.Hit.Chunk.DocPath, it.Hit.Chunk.ID), PointID: it.Hit.Chunk.ID, DocPath: it.Hit.Chunk.DocPath, Rank: it.Hit.Rank, Score: &score}
	}
	if it.Pseudo {
		tg.chunk = retrieval.Chunk{}
	}
	return tg, t, true
}

// explainSelected takes the selected row's score apart (key X).
func (m *Model) explainSelected() tea.Cmd {
	tg, t, ok := m.selectedTarget("why this score")
	if !ok {
		return nil
	}
	ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
	m.explainSeq++
	n, seq, q, fn := t.N, m.explainSeq, t.Query, m.opts.Explain.Explain
	top := ""
	if len(t.Result.Hits) > 0 {
		top = t.Result.Hits[0].Chunk.ID
	}
	m.setStatus(statusInfo, "Taking the score apart…")
	return func() tea.Msg {
		defer cancel()
		e, err := fn(ctx, q, tg.id, tg.exp, top)
		return explainedMsg{N: n, Seq: seq, ID: tg.id, E: e, Err: err}
	}
}

// updateExplained shows an explanation on its rows when its turn is on
// show.
func (m *Model) updateExplained(msg explainedMsg) tea.Cmd {
	t := m.turns.Current()
	if t == nil || t.N != msg.N || msg.Seq != m.explainSeq {
		return nil
	}
	if msg.Err != nil {
		m.setStatus(statusErr, "Cannot explain the score: "+common.ErrorText(msg.Err))
		return nil
	}
	m.results.SetExplained(msg.ID, msg.E)
	m.setStatus(statusOK, "Why this score: in the detail pane (E edits the chunk's text to try a fix).")
	return m.syncDetail()
}

// editSelected opens the selected row's chunk text in the editor (key E).
func (m *Model) editSelected() tea.Cmd {
	tg, t, ok := m.selectedTarget("the what-if editor")
	if !ok {
		return nil
	}
	ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
	m.editSeq++
	n, seq, editor, read := t.N, m.editSeq, m.opts.Explain.Editor, m.opts.Explain.Chunk
	m.setStatus(statusInfo, "Opening the chunk's text…")
	return func() tea.Msg {
		defer cancel()
		if tg.chunk.Text == "" && read != nil && tg.exp != nil {
			c, err := read(ctx, tg.id, tg.exp.DocPath)
			if err != nil {
				return editReadyMsg{N: n, Seq: seq, Err: err}
			}
			tg.chunk = c
		}
		if tg.chunk.Text == "" {
			return editReadyMsg{N: n, Seq: seq, Err: errors.New("the chunk's text cannot be read")}
		}
		if editor == "" {
			return editReadyMsg{N: n, Seq: seq, Target: tg}
		}
		f, err := os.CreateTemp("", "ragscope-whatif-*.md")
		if err != nil {
			return editReadyMsg{N: n, Seq: seq, Err: err}
		}
		_, werr := f.WriteString(tg.chunk.Text)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(f.Name())
			return editReadyMsg{N: n, Seq: seq, Err: werr}
		}
		return editReadyMsg{N: n, Seq: seq, Target: tg, Path: f.Name()}
	}
}

// updateEditReady hands the text to $EDITOR (the program waits for it)
// or to the text area.
func (m *Model) updateEditReady(msg editReadyMsg) tea.Cmd {
	if msg.Seq != m.editSeq {
		if msg.Path != "" {
			return removeFileCmd(msg.Path)
		}
		return nil
	}
	if msg.Err != nil {
		m.setStatus(statusErr, "Cannot edit the chunk: "+common.ErrorText(msg.Err))
		return nil
	}
	if msg.Path == "" {
		return m.openEditArea(msg)
	}
	fields := strings.Fields(m.opts.Explain.Editor)
	cmd := exec.Command(fields[0], append(fields[1:], msg.Path)...)
	return tea.ExecProcess(cmd, func(err error) tea.Msg {
		return editedMsg{N: msg.N, Seq: msg.Seq, Target: msg.Target, Path: msg.Path, Err: err}
	})
}

// removeFileCmd removes a temporary file.
func removeFileCmd(path string) tea.Cmd {
	return func() tea.Msg {
		os.Remove(path)
		return nil
	}
}

// updateEdited reads the saved text and ranks it.
func (m *Model) updateEdited(msg editedMsg) tea.Cmd {
	if msg.Seq != m.editSeq {
		return removeFileCmd(msg.Path)
	}
	if msg.Err != nil {
		m.setStatus(statusErr, "The editor failed: "+common.ErrorText(msg.Err))
		return removeFileCmd(msg.Path)
	}
	path := msg.Path
	return m.rankEdit(msg.N, msg.Seq, msg.Target, func() (string, error) {
		defer os.Remove(path)
		b, err := os.ReadFile(path)
		return string(b), err
	})
}

// rankEdit ranks the edited text text() gives against the turn's query.
func (m *Model) rankEdit(n, seq int, tg editTarget, text func() (string, error)) tea.Cmd {
	t := m.turns.ByN(n)
	if t == nil {
		return nil
	}
	ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
	q, fn := t.Query, m.opts.Explain.WhatIf
	m.setStatus(statusInfo, "Ranking your edit (nothing is written)…")
	return func() tea.Msg {
		defer cancel()
		s, err := text()
		if err == nil && strings.TrimSpace(s) == "" {
			err = errors.New("the edited text is empty")
		}
		if err != nil {
			return whatIfMsg{N: n, Seq: seq, Target: tg, Err: err}
		}
		if s == tg.chunk.Text {
			return whatIfMsg{N: n, Seq: seq, Target: tg, Err: errors.New("the text did not change")}
		}
		tg.chunk.Text = s
		w, err := fn(ctx, q, tg.id, tg.from, s)
		return whatIfMsg{N: n, Seq: seq, Target: tg, W: w, Err: err}
	}
}

// updateWhatIf shows the edit's would-be row at its rank.
func (m *Model) updateWhatIf(msg whatIfMsg) tea.Cmd {
	t := m.turns.Current()
	if t == nil || t.N != msg.N || msg.Seq != m.editSeq {
		return nil
	}
	if msg.Err != nil {
		m.setStatus(statusErr, "No what-if: "+common.ErrorText(msg.Err))
		return nil
	}
	m.results.SetWhatIf(msg.W, msg.Target.chunk)
	m.setStatus(statusOK, present.WhatIfLine(msg.W))
	return m.syncDetail()
}

// editArea is the what-if text area (no $EDITOR): the chunk's text to
// edit; ctrl+s ranks the edit, esc leaves it.
type editArea struct {
	ta     textarea.Model
	n, seq int
	target editTarget
	w, h   int
}

// openEditArea opens the text area on the chunk msg carries.
func (m *Model) openEditArea(msg editReadyMsg) tea.Cmd {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.SetValue(msg.Target.chunk.Text)
	m.editArea = &editArea{ta: ta, n: msg.N, seq: msg.Seq, target: msg.Target}
	m.setStatus(statusInfo, "Edit the chunk's text: ctrl+s ranks your edit among the results (nothing is written) · esc leaves it.")
	cmd := m.editArea.ta.Focus()
	return tea.Batch(cmd, m.layout())
}

// setSize fits the area in the body.
func (a *editArea) setSize(w, h int) {
	a.w, a.h = w, h
	a.ta.SetWidth(max(w-2, 10))
	a.ta.SetHeight(max(h-3, 3))
}

// view is the area with its title.
func (a *editArea) view(st *common.Styles) string {
	title := st.FocusedTitle.Render(common.Truncate("✎ what if "+present.Title(&a.target.chunk)+" said…", a.w))
	hint := st.Meta.Render(common.Truncate("ctrl+s ranks the edit · esc leaves it · nothing is written", a.w))
	return title + "\n" + hint + "\n" + a.ta.View()
}

// updateEditArea gives a key to the text area: ctrl+s ranks the edit,
// esc closes it, ctrl+c quits.
func (m *Model) updateEditArea(msg tea.KeyPressMsg) tea.Cmd {
	a := m.editArea
	switch msg.String() {
	case "ctrl+c":
		m.stop()
		return tea.Quit
	case "esc":
		m.editArea = nil
		m.setStatus(statusInfo, "Edit left; nothing was ranked or written.")
		return m.layout()
	case "ctrl+s":
		text := a.ta.Value()
		m.editArea = nil
		return tea.Batch(m.layout(), m.rankEdit(a.n, a.seq, a.target, func() (string, error) { return text, nil }))
	}
	var cmd tea.Cmd
	a.ta, cmd = a.ta.Update(msg)
	return cmd
}
