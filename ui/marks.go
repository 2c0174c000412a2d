package ui

import (
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/termsafe"
	"ragscope/ui/common"
	"ragscope/ui/settings"
)

// marksOf returns the marks of turn t, created on first use.
func marksOf(t *common.Turn) map[string]common.Mark {
	if t.Marks == nil {
		t.Marks = map[string]common.Mark{}
	}
	return t.Marks
}

// markSelected marks the hit under the cursor with k (markNone clears it).
func (m *Model) markSelected(k common.Mark) tea.Cmd {
	t := m.turns.Current()
	it, ok := m.results.Selected()
	switch {
	case t == nil || !ok:
		m.setStatus(statusErr, "Ask a question first, then mark its hits: m relevant, M not relevant, u clears.")
		return nil
	case it.Pseudo:
		m.setStatus(statusErr, "This row is an expected source the results do not hold: mark a hit of the results.")
		return nil
	case t.Query.Mode == retrieval.ModeSelectedText:
		m.setStatus(statusErr, "Selected text retrieves nothing to mark: S saves the turn as a selected-text case.")
		return nil
	}
	marks := marksOf(t)
	id := it.Hit.Chunk.ID
	if k == common.MarkNone {
		delete(marks, id)
		m.setStatus(statusInfo, "Mark cleared. S saves the turn to "+termsafe.Line(m.goldenPath)+".")
	} else {
		marks[id] = k
		m.setStatus(statusOK, "Marked "+k.String()+": "+termsafe.Line(markRef(it.Hit))+". S saves the turn to "+termsafe.Line(m.goldenPath)+".")
	}
	m.results.SetMarks(marks)
	return m.syncDetail()
}

// markRef is how a hit is named in the golden file: its doc path, else
// its citation URL, else its chunk id.
func markRef(h retrieval.Hit) string {
	switch {
	case h.Chunk.DocPath != "":
		return h.Chunk.DocPath
	case h.Citation.URL != "":
		return h.Citation.URL
	}
	return h.Chunk.ID
}

// turnHits are every hit of a result: kept, then left out.
func turnHits(res *retrieval.Result) []retrieval.Hit {
	hits := make([]retrieval.Hit, 0, len(res.Hits)+len(res.Dropped))
	hits = append(hits, res.Hits...)
	for _, d := range res.Dropped {
		hits = append(hits, d.Hit)
	}
	return hits
}

// caseOf is the golden case of turn t: its question, mode (with the
// selection), filters, and what its marks expect. A relevant mark expects
// the hit's page (doc path); a not-relevant mark labels its page, or,
// when a relevant mark is on the same page, both name their section
// (the citation URL with its #anchor) so the two do not contradict.
// note says what could not be saved ("" when everything was).
func caseOf(t *common.Turn) (c eval.Case, note string) {
	q := t.Query
	c = eval.Case{Question: strings.TrimSpace(q.Question), Mode: q.Mode, Filters: settings.CloneFilters(q.Filters)}
	if q.Mode == retrieval.ModeSelectedText {
		c.SelectedText, c.SourceDocPath, c.SourceSection = q.SelectedText, q.SourceDocPath, q.SourceSection
		c.Filters = retrieval.Filters{}
		return c, ""
	}
	page := func(h retrieval.Hit) string { return h.Chunk.DocPath }
	relPages := map[string]bool{}
	notPages := map[string]bool{}
	for _, h := range turnHits(&t.Result) {
		switch t.Marks[h.Chunk.ID] {
		case common.MarkRelevant:
			relPages[page(h)] = true
		case common.MarkNotRelevant:
			notPages[page(h)] = true
		}
	}
	seen := map[string]bool{}
	add := func(list *[]string, v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			*list = append(*list, v)
		}
	}
	var dropped int
	for _, h := range turnHits(&t.Result) {
		k := t.Marks[h.Chunk.ID]
		if k == common.MarkNone {
			continue
		}
		p := page(h)
		split := p != "" && relPages[p] && notPages[p]
		switch {
		case split && strings.Contains(h.Citation.URL, "#"):
			if k == common.MarkRelevant {
				add(&c.Expect.URLs, h.Citation.URL)
			} else {
				add(&c.Expect.NotRelevant.URLs, h.Citation.URL)
			}
		case split && k == common.MarkNotRelevant:
			// No section to tell it from the relevant hit on its page.
			dropped++
		case p != "" && k == common.MarkRelevant:
			add(&c.Expect.DocPaths, p)
		case p != "":
			add(&c.Expect.NotRelevant.DocPaths, p)
		case h.Citation.URL != "" && k == common.MarkRelevant:
			add(&c.Expect.URLs, h.Citation.URL)
		case h.Citation.URL != "":
			add(&c.Expect.NotRelevant.URLs, h.Citation.URL)
		default:
			dropped++
		}
	}
	if dropped > 0 {
		note = "; " + plural(dropped, "mark", "marks") + " not saved (no page, or the same page as a relevant hit without a section)"
	}
	return c, note
}

// plural is "n thing" or "n things".
func plural(n int, one, many string) string {
	return strconv.Itoa(n) + " " + present.Plural(n, one, many)
}

// marksFromExpect are the marks an opened golden case brings back: hits
// that match its expected doc paths or URLs are relevant, those its
// not_relevant labels name are not.
func marksFromExpect(res *retrieval.Result, e eval.Expect) map[string]common.Mark {
	out := map[string]common.Mark{}
	for _, h := range turnHits(res) {
		switch eval.MarkOf(h, e) {
		case 1:
			out[h.Chunk.ID] = common.MarkRelevant
		case -1:
			out[h.Chunk.ID] = common.MarkNotRelevant
		}
	}
	return out
}

// savedMsg is the outcome of saving a turn as a golden case.
type savedMsg struct {
	Path   string
	N      int
	Result eval.SaveResult
	Note   string
	Err    error
}

// saveCaseCmd writes c into the golden file at path (I/O, off Update).
func saveCaseCmd(path string, n int, c eval.Case, replace bool, note string) tea.Cmd {
	return func() tea.Msg {
		res, err := eval.SaveCase(expandHome(path), c, replace)
		return savedMsg{Path: path, N: n, Result: res, Note: note, Err: err}
	}
}

// expandHome resolves a leading ~/ to the home folder.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

// saveCase saves the turn on show as a case of the golden file (S). When
// the file already asks the question, the first S asks and a second S on
// the same turn replaces it.
func (m *Model) saveCase() tea.Cmd {
	t := m.turns.Current()
	if t == nil {
		m.setStatus(statusErr, "Ask a question first: S saves the turn on show to "+termsafe.Line(m.goldenPath)+".")
		return nil
	}
	replace := m.confirmSave == t.N
	m.confirmSave = 0
	c, note := caseOf(t)
	// A case opened from the eval view saves back into its own file, so
	// marking an unlabelled case's hits labels that case.
	path := cmp.Or(t.CaseFile, m.goldenPath)
	m.setStatus(statusInfo, "Saving to "+termsafe.Line(path)+"…")
	return saveCaseCmd(path, t.N, c, replace, note)
}

// updateSaved reports a save in the status line. A case with the same
// question waits for a second S.
func (m *Model) updateSaved(msg savedMsg) {
	path := termsafe.Line(msg.Path)
	var exists *eval.CaseExistsError
	switch {
	case errors.As(msg.Err, &exists):
		m.confirmSave = msg.N
		m.setStatus(statusErr, "Case "+exists.ID+" (line "+strconv.Itoa(exists.Line)+" of "+path+") already asks this question: press S again to replace it, any other key keeps it.")
	case msg.Err != nil:
		m.setStatus(statusErr, "Not saved: "+msg.Err.Error())
	default:
		verb := "saved " + msg.Result.ID + " to "
		if msg.Result.Replaced {
			verb = "replaced " + msg.Result.ID + " in "
		}
		m.setStatus(statusOK, verb+path+" ("+plural(msg.Result.Cases, "case", "cases")+")"+msg.Note+"; e runs the file.")
		if m.eval.Path() == "" && !m.eval.Running {
			m.eval.Input.SetValue(msg.Path)
		}
	}
}

// carriedCaseFile is the golden file a new result's turn saves into: the
// opened case's file, kept while its question re-runs with other
// settings; "" (the golden file setting) otherwise.
func (m *Model) carriedCaseFile(msg resultMsg) string {
	if msg.Seq == m.caseSeq && m.caseExpect != nil {
		return m.caseFile
	}
	if prev := m.rerunOf(msg); prev != nil {
		return prev.CaseFile
	}
	return ""
}

// rerunOf is the turn on show when msg re-runs its question (same words,
// same mode; other settings or rerank), else nil.
func (m *Model) rerunOf(msg resultMsg) *common.Turn {
	prev := m.turns.Current()
	if prev == nil || prev.Query.Mode != msg.Query.Mode ||
		!strings.EqualFold(strings.TrimSpace(prev.Query.Question), strings.TrimSpace(msg.Query.Question)) {
		return nil
	}
	return prev
}

// carriedMarks are the marks of a new result: an opened golden case's
// (from its expectation), else the marks of the turn on show when the
// result re-runs its question (other settings, rerank), as far as its
// hits are still there.
func (m *Model) carriedMarks(msg resultMsg) map[string]common.Mark {
	if msg.Seq == m.caseSeq && m.caseExpect != nil {
		return marksFromExpect(&msg.Result, *m.caseExpect)
	}
	prev := m.rerunOf(msg)
	if prev == nil || len(prev.Marks) == 0 {
		return nil
	}
	out := map[string]common.Mark{}
	for _, h := range turnHits(&msg.Result) {
		if k := prev.Marks[h.Chunk.ID]; k != common.MarkNone {
			out[h.Chunk.ID] = k
		}
	}
	return out
}
