// Package goldencase makes golden cases in the explorer: a turn's marks
// (m, M, u) into an eval.Case, its save into the golden file (S) and the
// status line that says how it went, and the marks that come back when a
// case is opened from the eval view or a question re-runs with other
// settings. It is a service of the root model: functions over
// common.Turn and the retrieval types, and one command.
package goldencase

import (
	"errors"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/internal/platform"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// Marks returns the marks of turn t, created on first use.
func Marks(t *common.Turn) map[string]common.Mark {
	if t.Marks == nil {
		t.Marks = map[string]common.Mark{}
	}
	return t.Marks
}

// Ref is how a hit is named in the golden file: its doc path, else its
// citation URL, else its chunk id.
func Ref(h retrieval.Hit) string {
	switch {
	case h.Chunk.DocPath != "":
		return h.Chunk.DocPath
	case h.Citation.URL != "":
		return h.Citation.URL
	}
	return h.Chunk.ID
}

// hits are every hit of a result: kept, then left out.
func hits(res *retrieval.Result) []retrieval.Hit {
	out := make([]retrieval.Hit, 0, len(res.Hits)+len(res.Dropped))
	out = append(out, res.Hits...)
	for _, d := range res.Dropped {
		out = append(out, d.Hit)
	}
	return out
}

// FromTurn is the golden case of turn t: its question, mode (with the
// selection), filters, and what its marks expect. A relevant mark expects
// the hit's page (doc path); a not-relevant mark labels its page, or,
// when a relevant mark is on the same page, both name their section (the
// citation URL with its #anchor) so the two do not contradict. note says
// what could not be saved ("" when everything was).
func FromTurn(t *common.Turn) (c eval.Case, note string) {
	q := t.Query
	c = eval.Case{Question: strings.TrimSpace(q.Question), Mode: q.Mode, Filters: common.CloneFilters(q.Filters)}
	if q.Mode == retrieval.ModeSelectedText {
		c.SelectedText, c.SourceDocPath, c.SourceSection = q.SelectedText, q.SourceDocPath, q.SourceSection
		c.Filters = retrieval.Filters{}
		return c, ""
	}
	all := hits(&t.Result)
	relPages := map[string]bool{}
	notPages := map[string]bool{}
	for _, h := range all {
		switch t.Marks[h.Chunk.ID] {
		case common.MarkRelevant:
			relPages[h.Chunk.DocPath] = true
		case common.MarkNotRelevant:
			notPages[h.Chunk.DocPath] = true
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
	for _, h := range all {
		k := t.Marks[h.Chunk.ID]
		if k == common.MarkNone {
			continue
		}
		p := h.Chunk.DocPath
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

// MarksFromExpect are the marks an opened golden case brings back: hits
// that match its expected doc paths or URLs are relevant, those its
// not_relevant labels name are not.
func MarksFromExpect(res *retrieval.Result, e eval.Expect) map[string]common.Mark {
	out := map[string]common.Mark{}
	for _, h := range hits(res) {
		switch eval.MarkOf(h, e) {
		case 1:
			out[h.Chunk.ID] = common.MarkRelevant
		case -1:
			out[h.Chunk.ID] = common.MarkNotRelevant
		}
	}
	return out
}

// Opened is an eval case opened as a query: the retrieval that runs it
// (Seq), named Label in its status line; its expectation, whose matching
// hits get their marks back; and the golden file it came from ("" for the
// built-in set), which its turn saves back into.
type Opened struct {
	Seq    int
	Label  string
	Expect *eval.Expect
	File   string
}

// Carried are the marks and the golden file of a new turn: retrieval seq
// asked q and got res; prev is the turn on show before it (nil: none).
// The opened case's result gets the case's marks (from its expectation)
// and file; a re-run of prev's question (same words, same mode; other
// settings, rerank) keeps prev's file and its marks as far as its hits are
// still there; any other turn starts with neither.
func (o *Opened) Carried(seq int, prev *common.Turn, q retrieval.Query, res *retrieval.Result) (map[string]common.Mark, string) {
	if seq == o.Seq && o.Expect != nil {
		return MarksFromExpect(res, *o.Expect), o.File
	}
	if prev == nil || prev.Query.Mode != q.Mode ||
		!strings.EqualFold(strings.TrimSpace(prev.Query.Question), strings.TrimSpace(q.Question)) {
		return nil, ""
	}
	if len(prev.Marks) == 0 {
		return nil, prev.CaseFile
	}
	out := map[string]common.Mark{}
	for _, h := range hits(res) {
		if k := prev.Marks[h.Chunk.ID]; k != common.MarkNone {
			out[h.Chunk.ID] = k
		}
	}
	return out, prev.CaseFile
}

// SavedMsg is the outcome of saving turn N as a golden case of Path.
type SavedMsg struct {
	Path   string
	N      int
	Result eval.SaveResult
	Note   string
	Err    error
}

// SaveCmd writes c into the golden file at path (a leading ~/ is the home
// folder) off Update; replace replaces the case asking the same question,
// note is FromTurn's.
func SaveCmd(path string, n int, c eval.Case, replace bool, note string) tea.Cmd {
	return func() tea.Msg {
		res, err := eval.SaveCase(platform.ExpandHome(path), c, replace)
		return SavedMsg{Path: path, N: n, Result: res, Note: note, Err: err}
	}
}

// Status is the status line after save msg. confirm is set when the file
// already asks the question: a second S on the same turn replaces it.
func (msg SavedMsg) Status() (kind common.StatusKind, text string, confirm bool) {
	path := termsafe.Line(msg.Path)
	var exists *eval.CaseExistsError
	switch {
	case errors.As(msg.Err, &exists):
		return common.StatusErr, "Case " + exists.ID + " (line " + strconv.Itoa(exists.Line) + " of " + path + ") already asks this question: press S again to replace it, any other key keeps it.", true
	case msg.Err != nil:
		return common.StatusErr, "Not saved: " + msg.Err.Error(), false
	}
	verb := "saved " + msg.Result.ID + " to "
	if msg.Result.Replaced {
		verb = "replaced " + msg.Result.ID + " in "
	}
	return common.StatusOK, verb + path + " (" + plural(msg.Result.Cases, "case", "cases") + ")" + msg.Note + "; e runs the file.", false
}
