package results

import (
	"context"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
)

// ExpectSetup offers "Why not this chunk?" in the explorer: a picker of
// expected sources (key w) whose rank, score and cut show in the results,
// and the ANN check (key W, Qdrant). Zero hides both.
type ExpectSetup struct {
	// Sources lists the collection's doc paths and sections for the
	// picker; nil leaves only typing or pasting a ref.
	Sources func(ctx context.Context) ([]DocSource, error)
	// Diagnose says where each of refs went for q (the query on show,
	// rerankModel naming the rerank model when q reranks), and with
	// annCheck compares its search with an exact one: the diagnosis
	// `query --expect --ann-check` prints (retrieval.Pipeline.Diagnose).
	Diagnose func(ctx context.Context, q retrieval.Query, rerankModel string, refs []retrieval.ExpectRef, annCheck bool) (retrieval.Diagnosis, error)
	// ANN offers the ANN check (an approximate store: Qdrant).
	ANN bool
}

// MaxExpected bounds the expected sources of a question.
const MaxExpected = 8

// SourcesMsg carries the picker's sources.
type SourcesMsg struct {
	Sources []DocSource
	Err     error
}

// DiagMsg carries the diagnosis of turn N.
type DiagMsg struct {
	N    int
	Seq  int
	ANN  bool
	Diag retrieval.Diagnosis
	Err  error
}

// SourcesCmd lists the picker's sources with fn, then cancels ctx.
func SourcesCmd(ctx context.Context, cancel context.CancelFunc, fn func(context.Context) ([]DocSource, error)) tea.Cmd {
	return func() tea.Msg {
		defer cancel()
		src, err := fn(ctx)
		return SourcesMsg{Sources: src, Err: err}
	}
}

// DiagnoseCmd runs the diagnosis seq of turn n: where refs went for q
// (model the rerank model when q reranks), with ann the ANN check too;
// refs that do not parse are left out. It cancels ctx when done.
func (s ExpectSetup) DiagnoseCmd(ctx context.Context, cancel context.CancelFunc, n, seq int, q retrieval.Query, model string, refs []string, ann bool) tea.Cmd {
	fn := s.Diagnose
	refs = slices.Clone(refs)
	return func() tea.Msg {
		defer cancel()
		parsed := make([]retrieval.ExpectRef, 0, len(refs))
		for _, r := range refs {
			if p, err := retrieval.ParseExpectRef(r); err == nil {
				parsed = append(parsed, p)
			}
		}
		d, err := fn(ctx, q, model, parsed, ann)
		return DiagMsg{N: n, Seq: seq, ANN: ann, Diag: d, Err: err}
	}
}

// ToggleExpected is refs with pick taken out when it is there, added
// when not (the oldest giving way past MaxExpected).
func ToggleExpected(refs []string, pick string) []string {
	refs = slices.Clone(refs)
	if i := slices.Index(refs, pick); i >= 0 {
		return slices.Delete(refs, i, i+1)
	}
	if len(refs) >= MaxExpected {
		refs = refs[1:]
	}
	return append(refs, pick)
}

// DiagStatus is the status line after diagnosis d: the ANN check when it
// ran (ann), else where each expected source went, with the closest doc
// paths of sources for one not found; bad says something was missed or
// cut.
func DiagStatus(d *retrieval.Diagnosis, ann bool, sources []DocSource) (text string, bad bool) {
	if ann && d.ANN == nil && len(d.Notes) > 0 {
		// The server refused exact search: say so.
		return strings.Join(d.Notes, " · "), true
	}
	if ann && d.ANN != nil {
		return annStatus(d.ANN)
	}
	var parts []string
	for i := range d.Expected {
		e := &d.Expected[i]
		s := e.Sentence()
		if !e.Found() {
			bad = true
			ref, _, _ := strings.Cut(e.Ref, "#")
			if close := retrieval.Closest(ref, docPaths(sources), 3); len(close) > 0 {
				s += "; closest: " + strings.Join(close, ", ")
			}
		} else if e.Cut != retrieval.CutNone {
			bad = true
		}
		parts = append(parts, s)
	}
	parts = append(parts, d.Notes...)
	return strings.Join(parts, " · "), bad
}

// annStatus is the ANN check's status line: its summary and the first
// exact hits the approximate search missed.
func annStatus(c *retrieval.ANNCheck) (text string, bad bool) {
	text = c.Summary()
	if qs := c.QuantizationSummary(); qs != "" {
		text += " · " + qs
	}
	for i, miss := range c.Missed {
		if i == 3 {
			text += " · …"
			break
		}
		text += " · missed exact #" + strconv.Itoa(miss.ExactRank) + " " + miss.DocPath + SectionText(miss.Section)
	}
	return text, len(c.Missed) > 0
}

// docPaths is the distinct doc paths of the sources.
func docPaths(src []DocSource) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range src {
		p, _, _ := strings.Cut(s.Ref, "#")
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
