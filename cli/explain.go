package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/internal/readlimit"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
)

// explainFlags are the query command's explanation flags: --explain takes
// each hit's and expected source's score apart (on by default with
// --expect, for the expected sources and the #1 hit). After the query,
// rep holds the explanations in targets' order.
type explainFlags struct {
	on bool
	// all: --explain was given, so every hit is explained.
	all bool
	// whatIf and whatIfAdd are --what-if REF=FILE and --what-if-add
	// REF=WORDS as given; edits what they ask, whatIfs where they rank.
	whatIf, whatIfAdd []string
	edits             []explain.Edit
	whatIfs           []explain.WhatIf

	x       *explain.Explainer
	pending *explain.Pending
	targets []explain.Target
	rep     explain.Report
	notes   []string
}

// register adds --explain, --what-if and --what-if-add to cmd.
func (e *explainFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&e.on, "explain", false, "take each hit's score apart: the question's words in the chunk, BM25 parts or each word's share of a dense score, suggestions (on by default with --expect)")
	f.StringArrayVar(&e.whatIf, "what-if", nil, "REF=FILE: rank the chunk REF resolves to (as --expect resolves it) with FILE's text instead ('-' reads standard input; REF NEW for a page that does not exist yet); nothing is written (repeatable)")
	f.StringArrayVar(&e.whatIfAdd, "what-if-add", nil, "REF=WORDS: rank the chunk REF resolves to with WORDS appended to its text; nothing is written (repeatable)")
}

// resolve decides, after flag parsing, whether to explain (--explain, or
// --expect or a what-if unless --explain=false) and reads the what-ifs:
// each REF becomes an expected source, so it is resolved and ranked as
// --expect resolves and ranks it.
func (e *explainFlags) resolve(cmd *cobra.Command, d *diagFlags, a *App) error {
	if e == nil {
		return nil
	}
	e.all = changedFlag(cmd.Flags(), "explain") && e.on
	stdin := false
	for _, kv := range append(append([]string(nil), e.whatIf...), e.whatIfAdd...) {
		add := len(e.edits) >= len(e.whatIf)
		flag := "--what-if"
		if add {
			flag = "--what-if-add"
		}
		ref, val, ok := strings.Cut(kv, "=")
		ref = strings.TrimSpace(ref)
		if !ok || ref == "" || strings.TrimSpace(val) == "" {
			return Usagef("%s %q: give REF=%s", flag, kv, map[bool]string{false: "FILE", true: "WORDS"}[add])
		}
		ed := explain.Edit{Ref: ref}
		switch {
		case add && ref == explain.NewRef:
			return Usagef("--what-if-add appends to a chunk: for a new page give --what-if NEW=FILE")
		case add:
			ed.Append = val
		default:
			text, err := readWhatIf(a, val, &stdin)
			if err != nil {
				return err
			}
			ed.Text = text
		}
		e.edits = append(e.edits, ed)
		if ref != explain.NewRef && d != nil && !slices.Contains(d.expect, ref) {
			d.expect = append(d.expect, ref)
		}
	}
	if !changedFlag(cmd.Flags(), "explain") && d != nil && len(d.expect) > 0 {
		e.on = true
	}
	if len(e.edits) > 0 && !e.on {
		return Usagef("--what-if ranks through the explanation: leave out --explain=false")
	}
	return nil
}

// readWhatIf reads a what-if's FILE ('-': standard input, once).
func readWhatIf(a *App, name string, stdinRead *bool) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		if *stdinRead {
			return "", Usagef("--what-if: standard input ('-') can be read once")
		}
		*stdinRead = true
		b, err = readlimit.Read(a.Stdin, readlimit.Markdown)
	} else {
		if !filepath.IsAbs(name) {
			name = filepath.Join(a.Dir, name)
		}
		b, err = readlimit.ReadFile(name, readlimit.Markdown)
	}
	if err != nil {
		return "", Usagef("--what-if %s: %v", name, err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", Usagef("--what-if %s is empty: give the chunk's new text", name)
	}
	return string(b), nil
}

// active reports whether the query is explained.
func (e *explainFlags) active() bool { return e != nil && e.on }

// start begins the question's leave-one-out embedding beside the query.
func (e *explainFlags) start(ctx context.Context, be *app.Backend, q retrieval.Query) {
	if !e.active() || q.Mode == retrieval.ModeSelectedText {
		return
	}
	e.x = be.Explainer(q)
	e.pending = e.x.Start(ctx, q.Question)
}

// finish explains the hits and expected sources once the query ran. A
// failure leaves the results as they are and becomes a note.
func (e *explainFlags) finish(ctx context.Context, be *app.Backend, q retrieval.Query, res *retrieval.Result, d *diagFlags) error {
	if e == nil || e.x == nil {
		return nil
	}
	for i, h := range res.Hits {
		if e.all || i == 0 {
			e.targets = append(e.targets, explain.Target{ID: h.Chunk.ID, Rank: h.Rank})
		}
	}
	if d != nil {
		for i := range d.diag.Expected {
			x := &d.diag.Expected[i]
			if x.Found() {
				e.targets = append(e.targets, explain.Target{ID: x.PointID, Rank: x.Rank, Expected: x})
			}
		}
	}
	rep, err := e.x.Explain(ctx, e.pending, q, res, e.targets)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		e.notes = append(e.notes, "the explanation failed: "+err.Error())
	}
	e.rep = rep
	e.notes = append(e.notes, rep.Notes...)
	return e.rankWhatIfs(ctx, be, q, d)
}

// rankWhatIfs scores the edits and places them among the candidates. A
// what-if that cannot be scored for want of a provider is a
// configuration error; a failed call leaves the results and says so.
func (e *explainFlags) rankWhatIfs(ctx context.Context, be *app.Backend, q retrieval.Query, d *diagFlags) error {
	if len(e.edits) == 0 {
		return nil
	}
	for i := range e.edits {
		if e.edits[i].Ref == explain.NewRef || d == nil {
			continue
		}
		for j := range d.diag.Expected {
			if d.diag.Expected[j].Ref == e.edits[i].Ref {
				e.edits[i].Expected = &d.diag.Expected[j]
			}
		}
	}
	var docs retrieval.Embedder
	if _, scores := e.x.Store.(retrieval.ScoreExplainer); !scores && be.DocEmbedder != nil {
		emb, err := be.DocEmbedder(ctx)
		if err != nil {
			return err
		}
		docs = emb
	}
	w, err := e.x.WhatIfs(ctx, e.pending, q, e.edits, docs)
	switch {
	case errors.Is(err, retrieval.ErrConfig) || errors.Is(err, context.Canceled):
		return err
	case err != nil:
		e.notes = append(e.notes, err.Error())
	}
	e.whatIfs = w
	return nil
}

// forHit is the explanation of hit rank (1-based), nil when none.
func (e *explainFlags) forHit(rank int) *explain.Explanation {
	if e == nil {
		return nil
	}
	for i, t := range e.targets {
		if t.Expected == nil && t.Rank == rank && i < len(e.rep.Explained) {
			return e.rep.Explained[i]
		}
	}
	return nil
}

// forExpected is the explanation of expected source x, nil when none.
func (e *explainFlags) forExpected(x *retrieval.Expected) *explain.Explanation {
	if e == nil {
		return nil
	}
	for i, t := range e.targets {
		if t.Expected == x && i < len(e.rep.Explained) {
			return e.rep.Explained[i]
		}
	}
	return nil
}

// addJSON puts each explanation on its row: results[i].explain and
// expected[i].explain.
func (e *explainFlags) addJSON(doc *QueryJSON, d *diagFlags) {
	if e == nil || e.x == nil {
		return
	}
	for i := range doc.Results {
		doc.Results[i].Explain = present.ExplainDoc(e.forHit(doc.Results[i].Rank))
	}
	if d != nil {
		for i := range doc.Expected {
			if i < len(d.diag.Expected) {
				doc.Expected[i].Explain = present.ExplainDoc(e.forExpected(&d.diag.Expected[i]))
			}
		}
	}
	doc.ExplainNotes = e.notes
	doc.WhatIf = e.whatIfs
}

// writeText prints the explanations under the diagnosis: the hits', then
// each expected source's beside the #1 hit.
func (e *explainFlags) writeText(w io.Writer, res *retrieval.Result, d *diagFlags) {
	if e == nil || e.x == nil {
		return
	}
	for _, h := range res.Hits {
		x := e.forHit(h.Rank)
		if x == nil || (!e.all && d != nil && len(d.diag.Expected) > 0) || d.expects(h.Chunk.ID) {
			continue
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Why #%d? %s (%s %.3f)\n", h.Rank, present.Title(&h.Chunk), x.Scorer, x.Score)
		writeExplainLines(w, x)
	}
	if d != nil {
		for i := range d.diag.Expected {
			ex := &d.diag.Expected[i]
			x := e.forExpected(ex)
			if x == nil {
				continue
			}
			fmt.Fprintln(w)
			head := "Why not #1?"
			if ex.Rank == 1 && ex.Cut == retrieval.CutNone {
				head = "Why #1?"
			}
			fmt.Fprintf(w, "%s %s (%s %.3f)\n", head, cleanLine(ex.Ref), x.Scorer, x.Score)
			writeExplainLines(w, x)
		}
	}
	if len(e.whatIfs) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "What if:")
		for _, wi := range e.whatIfs {
			fmt.Fprintf(w, "  %s\n", present.WhatIfLine(wi))
		}
	}
	for _, n := range e.notes {
		fmt.Fprintf(w, "Note: %s\n", cleanLine(n))
	}
}

func writeExplainLines(w io.Writer, x *explain.Explanation) {
	for _, l := range present.ExplainLines(x) {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// expects reports whether id is an expected source's chunk (explained
// under the expected sources, not twice).
func (d *diagFlags) expects(id string) bool {
	if d == nil {
		return false
	}
	for i := range d.diag.Expected {
		if d.diag.Expected[i].PointID == id {
			return true
		}
	}
	return false
}
