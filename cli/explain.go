package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/explain"
)

// explainFlags are the query command's explanation flags: --explain takes
// each hit's and expected source's score apart (on by default with
// --expect, for the expected sources and the #1 hit). After the query,
// rep holds the explanations in targets' order.
type explainFlags struct {
	on bool
	// all: --explain was given, so every hit is explained.
	all bool

	x       *explain.Explainer
	pending *explain.Pending
	targets []explain.Target
	rep     explain.Report
	notes   []string
}

// register adds --explain to cmd.
func (e *explainFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&e.on, "explain", false, "take each hit's score apart: the question's words in the chunk, BM25 parts or each word's share of a dense score, suggestions (on by default with --expect)")
}

// resolve decides, after flag parsing, whether to explain: --explain, or
// --expect unless --explain=false.
func (e *explainFlags) resolve(cmd *cobra.Command, d *diagFlags) {
	if e == nil {
		return
	}
	e.all = changedFlag(cmd.Flags(), "explain") && e.on
	if !changedFlag(cmd.Flags(), "explain") && d != nil && len(d.expect) > 0 {
		e.on = true
	}
}

// active reports whether the query is explained.
func (e *explainFlags) active() bool { return e != nil && e.on }

// start begins the question's leave-one-out embedding beside the query.
func (e *explainFlags) start(ctx context.Context, be *app.Backend, q retrieval.Query) {
	if !e.active() || q.Mode == retrieval.ModeSelectedText {
		return
	}
	e.x = newExplainer(be, q)
	e.pending = e.x.Start(ctx, q.Question)
}

// newExplainer is the explainer of be's pipeline for q.
func newExplainer(be *app.Backend, q retrieval.Query) *explain.Explainer {
	store, err := be.Pipeline.StoreFor(q)
	if err != nil {
		store = be.Pipeline.Store
	}
	x := &explain.Explainer{Store: store, Embedder: be.Pipeline.Embedder, Ranking: be.Pipeline.Ranking(q.SearchMode), Model: be.Model()}
	if be.Index != nil {
		x.Model = be.Index.Model
	}
	if x.Embedder == nil {
		x.NoEmbedder = "no query embedder is set up (its key is not set)"
	}
	return x
}

// finish explains the hits and expected sources once the query ran. A
// failure leaves the results as they are and becomes a note.
func (e *explainFlags) finish(ctx context.Context, q retrieval.Query, res *retrieval.Result, d *diagFlags) error {
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
