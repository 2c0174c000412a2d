package results

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// DocSource is one entry of the expected-source picker: a page (Ref is
// its doc path) or a section of it (Ref is "doc path#anchor").
type DocSource struct {
	// Ref is what the diagnosis is given (retrieval.ParseExpectRef).
	Ref string
	// Label is what the picker shows and matches ("docs/a.md ·
	// Section"); Ref when empty.
	Label string
}

// ExpectPicker chooses an expected source by typing part of a doc path
// or section, or takes a pasted URL or path as it is.
type ExpectPicker struct {
	common.FuzzyList
	st      *common.Styles
	sources []DocSource
	loading bool
	err     string
}

// NewExpectPicker is the picker, loading until its sources arrive.
func NewExpectPicker(keys *common.KeyMap, st *common.Styles) *ExpectPicker {
	return &ExpectPicker{FuzzyList: common.NewFuzzyList(keys, st, "type part of a doc path or section, or paste a URL", 2000), st: st, loading: true}
}

// SetSources gives the picker the collection's sources.
func (f *ExpectPicker) SetSources(src []DocSource, err error) {
	f.loading = false
	if err != nil {
		f.err = common.ErrorText(err)
	}
	f.sources = src
	labels := make([]string, len(src))
	for i, s := range src {
		labels[i] = cmp.Or(s.Label, s.Ref)
	}
	f.SetLabels(labels)
}

// choice is the ref enter picks: a typed URL as it is; else the source
// under the cursor; else the typed text.
func (f *ExpectPicker) choice() string {
	typed := strings.TrimSpace(f.Input.Value())
	i, ok := f.Current()
	if strings.Contains(typed, "://") || !ok {
		return typed
	}
	return f.sources[i].Ref
}

// Update handles a key or a paste: arrows move, enter picks (pick),
// esc closes (done), anything else is text.
func (f *ExpectPicker) Update(msg tea.Msg) (pick string, done bool, cmd tea.Cmd) {
	act, cmd := f.HandleKey(msg)
	switch act {
	case common.PickClose:
		return "", true, nil
	case common.PickToggle:
		return f.choice(), false, nil
	}
	return "", false, cmd
}

// View draws the input and as many matches as fit in w x h, marking the
// sources already expected.
func (f *ExpectPicker) View(w, h int, active []string) string {
	st := f.st
	var b strings.Builder
	name := "expected source"
	count := strconv.Itoa(len(f.Shown)) + "/" + strconv.Itoa(len(f.sources))
	f.Input.SetWidth(max(w-len(name)-len(count)-6, 4))
	b.WriteString(common.Truncate(st.FocusedTitle.Render(name+" › ")+f.Input.View()+" "+st.Meta.Render(count), w))
	b.WriteString("\n" + st.Meta.Render(common.Truncate("enter picks (again: drops it) · a typed or pasted URL or path is taken as it is · esc closes", w)))
	rows := f.Rows(h - 2)
	switch {
	case f.loading:
		b.WriteString("\n" + st.Meta.Render("listing the collection's pages…"))
	case f.err != "":
		b.WriteString("\n" + st.Missing.Render(common.Truncate("cannot list the pages: "+f.err+"; type or paste a doc path or URL", w)))
	case len(f.Shown) == 0 && strings.TrimSpace(f.Input.Value()) != "":
		b.WriteString("\n" + st.Missing.Render(common.Truncate("no page matches: enter takes the text as it is", w)))
	}
	f.WriteRows(&b, st, w, rows, func(i int) bool { return slices.Contains(active, f.sources[i].Ref) })
	return b.String()
}

// ShortHelp is the picker's help line.
func (f *ExpectPicker) ShortHelp() []key.Binding {
	k := f.Keys
	return []key.Binding{k.PickDown, pickHelp(k), k.PickClose, k.Quit}
}

func pickHelp(k *common.KeyMap) key.Binding {
	return key.NewBinding(key.WithKeys(k.PickToggle.Keys()...), key.WithHelp("enter", "pick / drop"))
}

// SectionText is " · section" ("" for none).
func SectionText(s string) string {
	if s == "" {
		return ""
	}
	return " · " + s
}

// expectItem is the results row of an expected source the results do
// not hold: marked, at its real rank, with its score and what cut it.
func expectItem(e *retrieval.Expected) common.Item {
	text := "The results do not hold this source's best chunk for the question."
	if e.DocPath != "" {
		text += " Press p to read its page's chunks in order."
	}
	c := retrieval.Chunk{ID: e.PointID, DocPath: e.DocPath, Section: e.Section, Text: text}
	if c.ID == "" {
		c.ID = "expected:" + e.Ref
	}
	h := retrieval.Hit{Rank: e.Rank, Chunk: c}
	if e.Score != nil {
		h.Score = *e.Score
	}
	return common.Item{Hit: h, Expect: e, Pseudo: true}
}
