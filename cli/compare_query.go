package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/present"
	"ragscope/retrieval"
)

// QueryCompareSchema names the version of the `query --vs` JSON document.
const QueryCompareSchema = "ragscope.query-compare/v1"

// QueryCompareJSON is the JSON document of `ragscope query --setup A --vs
// B QUESTION`: each setup's result, and every source with its rank in
// each and how it moved against the first.
type QueryCompareJSON struct {
	Schema string `json:"schema"`
	Query  string `json:"query"`
	// Setups are the setups' results, the first the one the others are
	// compared with.
	Setups []QuerySetupJSON `json:"setups"`
	// Sources are the sources any setup retrieved, in the first setup's
	// order, then the others'.
	Sources []SourceMoveJSON `json:"sources"`
}

// QuerySetupJSON is one setup's result.
type QuerySetupJSON struct {
	Letter string    `json:"letter"`
	Name   string    `json:"name"`
	Result QueryJSON `json:"result"`
}

// SourceMoveJSON is one source (a doc path and anchor, else a URL) across
// the setups.
type SourceMoveJSON struct {
	Source string `json:"source"`
	Title  string `json:"title"`
	// Ranks are its best rank in each setup (0: not retrieved).
	Ranks []int `json:"ranks"`
	// Moves say, for each setup after the first, how it moved against
	// the first: "↑3", "↓2", "=", "only in A", "only in B" ("" when in
	// neither).
	Moves []string `json:"moves"`
}

// runQueryVs retrieves question with every setup, concurrently, and shows
// the rankings side by side with each source's movement.
func (a *App) runQueryVs(cmd *cobra.Command, question string, qf queryFlags, vs []string) error {
	if err := onlyFlags(cmd, vsFlag, "top-k", "threshold", "module", "chapter", "type", "tag", "no-dedup", "json"); err != nil {
		return err
	}
	// Validate before opening anything: bad input costs no call.
	if _, _, _, err := retrieval.Normalize(qf.query(question, retrieval.RerankOptions{})); err != nil {
		return err
	}
	arms, err := a.openArms(cmd, vs)
	if err != nil {
		return err
	}
	fl := cmd.Flags()
	results := make([]retrieval.Result, len(arms))
	errs := make([]error, len(arms))
	var wg sync.WaitGroup
	for i, ar := range arms {
		aqf := qf
		// What the command line does not set comes from each setup.
		if !changedFlag(fl, "top-k") {
			aqf.topK = ar.cfg.TopK
		}
		if !changedFlag(fl, "threshold") {
			aqf.threshold = ar.cfg.Threshold
		}
		if !changedFlag(fl, "no-dedup") {
			aqf.noDedup = !ar.cfg.Dedup
		}
		q := aqf.query(question, app.FromConfig(ar.cfg).RerankOptions())
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := ctxWithTimeout(cmd.Context(), ar.cfg)
			defer cancel()
			results[i], errs[i] = ar.be.Pipeline.Retrieve(ctx, q)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("setup %s: %w", arms[i].name, err)
		}
	}
	doc := QueryCompareJSON{Schema: QueryCompareSchema, Query: results[0].Question, Sources: sourceMoves(arms, results)}
	any := false
	for i, ar := range arms {
		doc.Setups = append(doc.Setups, QuerySetupJSON{Letter: ar.letter, Name: ar.name, Result: queryJSON(ar.be, results[i])})
		any = any || len(results[i].Hits) > 0
	}
	out := cmd.OutOrStdout()
	if qf.json {
		if err := writeJSON(out, doc); err != nil {
			return err
		}
	} else {
		writeQueryCompareText(out, arms, results, doc.Sources)
	}
	if !any {
		return &ExitError{Code: ExitNoResults}
	}
	return nil
}

// sourceMoves lists every source the setups retrieved with its best rank
// in each and its movement against the first setup (present.SourceMoves).
func sourceMoves(arms []*arm, results []retrieval.Result) []SourceMoveJSON {
	rankings := make([][]retrieval.Hit, len(results))
	letters := make([]string, len(arms))
	for i := range results {
		rankings[i], letters[i] = results[i].Hits, arms[i].letter
	}
	moves := present.SourceMoves(rankings, letters)
	out := make([]SourceMoveJSON, len(moves))
	for i, s := range moves {
		out[i] = SourceMoveJSON{Source: s.Source, Title: s.Title, Ranks: s.Ranks, Moves: s.Moves}
	}
	return out
}

// writeQueryCompareText prints the rankings side by side, then every
// source with its ranks and movement.
func writeQueryCompareText(w io.Writer, arms []*arm, results []retrieval.Result, sources []SourceMoveJSON) {
	fmt.Fprintf(w, "Query: %q\n", cleanLine(results[0].Question))
	for i, ar := range arms {
		r := results[i]
		fmt.Fprintf(w, "  %s  %s: %s · top_k %d · threshold %.2f · %s\n", ar.letter, cleanLine(ar.name), strings.TrimPrefix(header(ar.be), "ragscope · "),
			r.Params.TopK, r.Params.Threshold, present.Timings(r.Timings, r.Mode))
	}
	fmt.Fprintln(w)
	move := map[string][]string{}
	for _, s := range sources {
		move[s.Source] = s.Moves
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := make([]string, 0, len(arms))
	rows := 0
	for _, ar := range arms {
		head = append(head, "#\t"+ar.letter+": "+clip(ar.name, 20)+"\t")
	}
	for _, r := range results {
		rows = max(rows, len(r.Hits))
	}
	fmt.Fprintln(tw, strings.Join(head, ""))
	for row := range rows {
		var cells []string
		for i, r := range results {
			if row >= len(r.Hits) {
				cells = append(cells, "\t\t")
				continue
			}
			h := r.Hits[row]
			mark := ""
			m := move[present.SourceKey(h)]
			switch {
			case i > 0:
				mark = m[i-1]
			case allOnly(m, arms[0].letter):
				mark = "only in " + arms[0].letter
			}
			cell := clip(present.Title(&h.Chunk), 38)
			if mark != "" {
				cell += "  " + mark
			}
			cells = append(cells, fmt.Sprintf("%d\t%s\t", h.Rank, cell))
		}
		fmt.Fprintln(tw, strings.Join(cells, ""))
	}
	tw.Flush()
	if rows == 0 {
		fmt.Fprintln(w, "No results in any setup.")
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Sources (matched by doc path and section anchor, else URL; never by chunk id):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cols := []string{"  SOURCE"}
	for _, ar := range arms {
		cols = append(cols, ar.letter)
	}
	for _, ar := range arms[1:] {
		cols = append(cols, ar.letter+" VS "+arms[0].letter)
	}
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	for _, s := range sources {
		cells := []string{"  " + clipMiddle(s.Source, 72)}
		for _, r := range s.Ranks {
			cells = append(cells, rankCell(r))
		}
		cells = append(cells, s.Moves...)
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// allOnly reports whether every movement of a source says it is only in
// the first setup.
func allOnly(moves []string, first string) bool {
	for _, m := range moves {
		if m != "only in "+first {
			return false
		}
	}
	return len(moves) > 0
}

// rankCell is a rank, "-" when not retrieved.
func rankCell(r int) string {
	if r == 0 {
		return "-"
	}
	return strconv.Itoa(r)
}
