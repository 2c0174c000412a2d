package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"ragscope/app"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
)

// diagFlags are the query command's "Why not this chunk?" flags: expected
// sources (--expect), exact search (--exact) and the ANN check
// (--ann-check). After the query, diag holds what they found.
type diagFlags struct {
	expect   []string
	exact    bool
	annCheck bool

	diag retrieval.Diagnosis
}

// active reports whether d asks for anything beyond a plain query.
func (d *diagFlags) active() bool {
	return d != nil && (len(d.expect) > 0 || d.exact || d.annCheck)
}

// retrieve runs q with the diagnosis d asks for. A REF that matches nothing
// is a configuration error (exit 2) naming the closest doc paths.
func (d *diagFlags) retrieve(ctx context.Context, be *app.Backend, q retrieval.Query) (retrieval.Result, error) {
	q.Exact = d.exact
	if q.Mode == retrieval.ModeSelectedText {
		return retrieval.Result{}, Usagef("--expect, --exact and --ann-check explain a search: leave out --selected-text")
	}
	refs := make([]retrieval.ExpectRef, len(d.expect))
	for i, raw := range d.expect {
		r, err := retrieval.ParseExpectRef(raw)
		if err != nil {
			return retrieval.Result{}, Usagef("--expect %s: give a doc path (docs/module-1/ros2.md), a citation URL or a point id", shortRef(raw, true))
		}
		refs[i] = r
	}
	if len(refs) == 0 && !d.annCheck {
		return be.Pipeline.Retrieve(ctx, q)
	}
	res, diag, err := be.Pipeline.Diagnose(ctx, q, refs, d.annCheck)
	if err != nil {
		return retrieval.Result{}, err
	}
	d.diag = diag
	var bad []string
	for i := range diag.Expected {
		if e := &diag.Expected[i]; !e.Found() {
			bad = append(bad, d.badRef(ctx, be, e))
		}
	}
	if len(bad) > 0 {
		return retrieval.Result{}, &ExitError{Code: ExitConfig, Err: fmt.Errorf("%s", strings.Join(bad, "\n"))}
	}
	return res, nil
}

// badRef is the message for an expected source that matched nothing, with
// the closest doc paths of the collection.
func (d *diagFlags) badRef(ctx context.Context, be *app.Backend, e *retrieval.Expected) string {
	msg := fmt.Sprintf("--expect %s: %s", shortRef(e.Ref, false), cleanLine(e.Detail))
	paths, err := be.Pipeline.DocPaths(ctx)
	if err != nil || len(paths) == 0 {
		return msg
	}
	ref, _, _ := strings.Cut(e.Ref, "#")
	close := retrieval.Closest(ref, paths, 5)
	for i := range close {
		close[i] = cleanLine(close[i])
	}
	return msg + "; closest doc paths: " + strings.Join(close, ", ")
}

// addJSON adds the diagnosis to a query's JSON document.
func (d *diagFlags) addJSON(doc *QueryJSON) {
	if d == nil {
		return
	}
	if len(d.expect) > 0 {
		doc.Expected = expectedJSON(d.diag.Expected)
	}
	doc.ANNCheck = d.diag.ANN
	doc.DiagnosisNotes = d.diag.Notes
}

// writeText prints the diagnosis under a query's results.
func (d *diagFlags) writeText(w io.Writer) {
	if d == nil {
		return
	}
	if len(d.diag.Expected) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Expected sources:")
		for i := range d.diag.Expected {
			e := &d.diag.Expected[i]
			fmt.Fprintf(w, "  - %s\n", cleanLine(e.Sentence()))
			if bc := bestChunkText(e); bc != "" {
				fmt.Fprintf(w, "    best chunk: %s\n", bc)
			}
		}
	}
	for _, n := range d.diag.Notes {
		fmt.Fprintf(w, "Note: %s\n", cleanLine(n))
	}
	if c := d.diag.ANN; c != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, cleanLine(c.Summary()))
		if qs := c.QuantizationSummary(); qs != "" {
			fmt.Fprintln(w, cleanLine(qs))
		}
		for _, m := range c.Missed {
			fmt.Fprintf(w, "  - missed exact #%d [%.3f] %s%s (point %s)\n", m.ExactRank, m.Score, cleanLine(m.DocPath), sectionText(m.Section), cleanLine(m.PointID))
		}
	}
}

// bestChunkText names an expected source's best chunk as the results
// list does ("Links and Joints · chunk 2/6"), then its point id: "point
// docs/a.md#1", never a bare "#1" that would read as a rank.
func bestChunkText(e *retrieval.Expected) string {
	var parts []string
	if e.Section != "" {
		parts = append(parts, cleanLine(e.Section))
	}
	if pt := e.PlaceText(); pt != "" {
		parts = append(parts, pt)
	}
	s := strings.Join(parts, " · ")
	if e.PointID != "" {
		if s != "" {
			s += " "
		}
		s += "(point " + cleanLine(e.PointID) + ")"
	}
	return s
}

// sectionText is " · SECTION" for a chunk's section (collection text,
// cleaned), "" without one.
func sectionText(s string) string {
	if s == "" {
		return ""
	}
	return " · " + cleanLine(s)
}

// writeANNText prints eval --ann-check's line under the overall figures.
func writeANNText(w io.Writer, a *eval.ANNReport) {
	if a == nil {
		return
	}
	fmt.Fprintf(w, "  ANN check: recall@k %.3f over %d cases · %s\n", a.RecallAtK, a.Cases, a.Verdict)
	if qz := a.Quantization; qz != nil {
		fmt.Fprintf(w, "  quantized collection: recall@k %.3f with rescoring, %.3f without; %s\n", qz.RescoreOn, qz.RescoreOff, cleanLine(qz.Applied))
	}
	if len(a.IndexMisses) > 0 {
		fmt.Fprintf(w, "  index misses: %s\n", cleanList(a.IndexMisses))
	}
	if len(a.OtherMisses) > 0 {
		fmt.Fprintf(w, "  model or chunking misses (exact search misses them too): %s\n", cleanList(a.OtherMisses))
	}
}

// cleanList is ids, each one clean line, joined by commas.
func cleanList(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = cleanLine(id)
	}
	return strings.Join(out, ", ")
}
