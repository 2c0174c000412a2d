package common

import (
	"charm.land/bubbles/v2/key"

	"ragscope/retrieval/assess/judge"
)

// KeyMap is every key binding of the explorer; the help line and the full
// help are built from it, so what help shows is what the keys do.
type KeyMap struct {
	// Global.
	Quit       key.Binding
	QuitQ      key.Binding
	NextPane   key.Binding
	PrevPane   key.Binding
	Run        key.Binding
	RunAny     key.Binding
	ToggleMode key.Binding
	Help       key.Binding
	Leave      key.Binding
	FocusQuery key.Binding

	// Views.
	Context  key.Binding
	Turns    key.Binding
	Settings key.Binding
	Dropped  key.Binding
	Eval     key.Binding
	Rerank   key.Binding
	Answer   key.Binding
	// Page opens the page a result came from: its chunks in order.
	Page key.Binding
	// Chunks opens the chunk audit of the whole collection.
	Chunks key.Binding
	// Expect picks an expected source for the question on show; ANNCheck
	// checks its approximate search against an exact one.
	Expect   key.Binding
	ANNCheck key.Binding
	// Split sets the question on show beside another named setup's
	// ranking (--vs).
	Split key.Binding
	// Judge has the chat model grade the hits of the turn on show and
	// check its answer's claims.
	Judge key.Binding
	// Explain takes the selected row's score apart; Edit opens its
	// chunk's text in an editor and ranks the edit (a what-if).
	Explain key.Binding
	Edit    key.Binding

	// Marks on the selected hit, and saving the turn as a golden case.
	MarkRelevant    key.Binding
	MarkNotRelevant key.Binding
	MarkClear       key.Binding
	SaveCase        key.Binding

	// Actions on the selected hit or result.
	CopyURL     key.Binding
	CopyContext key.Binding
	OpenURL     key.Binding

	// Lists and viewports.
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Open     key.Binding

	// Search in the results or the detail.
	Search     key.Binding
	SearchNext key.Binding
	SearchPrev key.Binding

	// Query input.
	HistoryPrev key.Binding
	HistoryNext key.Binding

	// Settings.
	Dec    key.Binding
	Inc    key.Binding
	Toggle key.Binding
	Clear  key.Binding
	Pick   key.Binding

	// Facet picker (type to filter a filter's values).
	PickUp     key.Binding
	PickDown   key.Binding
	PickToggle key.Binding
	PickClose  key.Binding

	// EvalOff keeps Eval disabled when there is no eval to run.
	EvalOff bool
	// RerankOff keeps Rerank disabled when there is no reranker.
	RerankOff bool
	// PageOff keeps Page disabled when the backend cannot list a page.
	PageOff bool
	// ChunksOff keeps Chunks disabled when there is no audit.
	ChunksOff bool
	// expectOff and annOff keep Expect and ANNCheck disabled when the
	// backend cannot diagnose (or searches exactly).
	ExpectOff, AnnOff bool
	// SplitOn keeps the keys that act on the results alone (page,
	// expected source, ANN check, left-out, search, judge) disabled while
	// the split view has the keyboard.
	SplitOn bool
	// explainOff and editOff keep Explain and Edit disabled when the
	// session cannot explain or rank an edit.
	ExplainOff, EditOff bool
	// JudgeOff keeps Judge out of the help line when there is no chat
	// model (the full help says so; the key says what enables one).
	JudgeOff bool
}

// DefaultKeyMap returns the explorer's key bindings.
func DefaultKeyMap() *KeyMap {
	return &KeyMap{
		Quit:       key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		QuitQ:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		NextPane:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Run:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run")),
		RunAny:     key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "run")),
		ToggleMode: key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "selected-text mode")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		Leave:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		FocusQuery: key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "ask")),

		Context:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "context")),
		Turns:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "turns")),
		Settings: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "settings")),
		Dropped:  key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "show left-out")),
		Eval:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "eval")),
		Rerank:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "rerank on/off")),
		Answer:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "answer")),
		Page:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "page chunks")),
		Chunks:   key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "chunk audit")),
		Expect:   key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "why not: expected source")),
		ANNCheck: key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "ANN check")),
		Split:    key.NewBinding(key.WithKeys("V"), key.WithHelp("V", "split vs a setup")),
		Judge:    key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "judge hits (and answer)")),
		Explain:  key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "why this score")),
		Edit:     key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "edit chunk: what if")),

		MarkRelevant:    key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "mark relevant")),
		MarkNotRelevant: key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "mark not relevant")),
		MarkClear:       key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "clear mark")),
		SaveCase:        key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "save turn as golden case")),

		CopyURL:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy URL")),
		CopyContext: key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy context")),
		OpenURL:     key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open URL")),

		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),

		Search:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		SearchNext: key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", "next/previous match")),
		SearchPrev: key.NewBinding(key.WithKeys("N")),

		HistoryPrev: key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "older question")),
		HistoryNext: key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "newer question")),

		Dec:    key.NewBinding(key.WithKeys("left", "h", "-"), key.WithHelp("←/h", "less")),
		Inc:    key.NewBinding(key.WithKeys("right", "l", "+"), key.WithHelp("→/l", "more")),
		Toggle: key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space", "toggle")),
		Clear:  key.NewBinding(key.WithKeys("backspace", "delete"), key.WithHelp("⌫", "clear filter")),
		Pick:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "type to pick values")),

		PickUp:     key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "previous")),
		PickDown:   key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓/↑", "move")),
		PickToggle: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "toggle value")),
		PickClose:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "done")),
	}
}

// letterKeys are the bindings that are plain characters: while a text
// input has focus they are text, so they are disabled (and vanish from
// the help).
func (k *KeyMap) letterKeys() []*key.Binding {
	return []*key.Binding{
		&k.QuitQ, &k.Help, &k.FocusQuery, &k.Context, &k.Turns, &k.Settings,
		&k.Dropped, &k.CopyURL, &k.CopyContext, &k.OpenURL, &k.Eval, &k.Rerank,
		&k.Search, &k.SearchNext, &k.SearchPrev, &k.Answer, &k.Page, &k.Chunks, &k.Expect, &k.ANNCheck, &k.Split, &k.Judge,
		&k.Explain, &k.Edit, &k.MarkRelevant, &k.MarkNotRelevant, &k.MarkClear, &k.SaveCase,
	}
}

// SetTextFocus enables or disables the letter bindings.
func (k *KeyMap) SetTextFocus(text bool) {
	for _, b := range k.letterKeys() {
		b.SetEnabled(!text)
	}
	// A key whose feature this session lacks, or that the split view
	// does not serve, stays off.
	off := func(when bool, bs ...*key.Binding) {
		if !when {
			return
		}
		for _, b := range bs {
			b.SetEnabled(false)
		}
	}
	off(k.EvalOff, &k.Eval)
	off(k.RerankOff, &k.Rerank)
	off(k.PageOff, &k.Page)
	off(k.ChunksOff, &k.Chunks)
	off(k.ExpectOff, &k.Expect)
	off(k.AnnOff, &k.ANNCheck)
	off(k.ExplainOff, &k.Explain)
	off(k.EditOff, &k.Edit)
	off(k.SplitOn, &k.Page, &k.Expect, &k.ANNCheck, &k.Dropped, &k.Search, &k.SearchNext, &k.SearchPrev, &k.Judge, &k.Explain, &k.Edit)
}

// JudgeHelp is the judge key for a help line: none without a judge.
func (k *KeyMap) JudgeHelp() []key.Binding {
	if k.JudgeOff {
		return nil
	}
	return []key.Binding{k.Judge}
}

// gradeInk is the colour of a grade: answers green, related yellow,
// unrelated red.
func (r *RowInks) Grade(j *judge.Judgement) Ink {
	switch {
	case j == nil || j.Grade == nil:
		return r.Meta
	case *j.Grade >= judge.Relevant:
		return r.LinkOK
	case *j.Grade == 1:
		return r.linkWarn
	}
	return r.LinkBad
}

func LeaveHelp(k *KeyMap, to string) key.Binding {
	b := k.Leave
	b.SetHelp("esc", to)
	return b
}

func RunHelp(b key.Binding, keys, what string) key.Binding {
	b.SetHelp(keys, what)
	return b
}

func TabHelp(k *KeyMap, to string) key.Binding {
	b := k.NextPane
	b.SetHelp("tab", to)
	return b
}

func OpenHelp(k *KeyMap, what string) key.Binding {
	b := k.Open
	b.SetHelp("enter", what)
	return b
}
