package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/internal/readlimit"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
)

type queryFlags struct {
	topK          int
	threshold     float64
	modules       []string
	chapters      []string
	types         []string
	tags          []string
	noDedup       bool
	json          bool
	context       bool
	selected      string
	sourceDoc     string
	sourceSection string
	// diag, set by the query command, asks for expected sources, exact
	// search or the ANN check (expect.go).
	diag *diagFlags
	// judge, set by the query command, asks for judging (judge.go).
	judge *judgeFlags
	// explain, set by the query command, takes scores apart (explain.go).
	explain *explainFlags
}

// newQueryCmd is the query command: queryCommand's flags and the ones
// only query has, the "Why not this chunk?" diagnosis (expect.go), the
// judge (judge.go) and the score breakdown (explain.go).
func (a *App) newQueryCmd() *cobra.Command {
	d := &diagFlags{}
	jf := &judgeFlags{}
	ef := &explainFlags{}
	cmd := a.queryCommand(func(cmd *cobra.Command, question string, qf queryFlags) error {
		qf.diag, qf.judge, qf.explain = d, jf, ef
		if err := ef.resolve(cmd, d, a); err != nil {
			return err
		}
		return a.runQuery(cmd, question, qf)
	})
	f := cmd.Flags()
	f.StringArrayVar(&d.expect, "expect", nil, "an expected source (doc path, citation URL or point id, optional #anchor): say where it ranked and what cut it (repeatable)")
	f.BoolVar(&d.exact, "exact", false, "search exactly (Qdrant params.exact), not through the approximate index")
	f.BoolVar(&d.annCheck, "ann-check", false, "also search exactly and report the approximate search's recall@k and the exact hits it missed")
	jf.register(cmd, false)
	ef.register(cmd)
	return cmd
}

// queryCommand is the query command with run as its action; ask is built
// on it, so the two share every flag.
func (a *App) queryCommand(run func(cmd *cobra.Command, question string, qf queryFlags) error) *cobra.Command {
	var qf queryFlags
	cmd := &cobra.Command{
		Use:   "query QUESTION",
		Short: "Retrieve the chunks a question gets, with scores, citations and timings",
		Long: `Embed QUESTION, search the configured backend and print the ranked chunks
with their scores, citation URLs and a preview, then the timings per stage.

With --selected-text the text (or standard input with '-') is the only
context: no embedding and no vector search run, as in a chatbot's
"ask about the selection" mode.

With --rerank MODEL (bm25 offline, or a Cohere rerank model: one call per
question), top_k × --rerank-candidates chunks are searched and reranked;
each hit shows its relevance, vector rank and score, and how it moved. A
failed rerank shows the vector results with the error.

Exit codes: 0 results found, 1 no results, 2 missing credentials or config,
3 backend unreachable, 64 bad usage (empty question, --top-k outside 1..100,
--threshold outside 0..1).`,
		Example: `  ragscope query "What is ROS 2?"
  ragscope query -k 10 --threshold 0.3 --module module-1-ros2 "how do nodes talk?"
  ragscope query --json "what is URDF?" | jq '.results[0].url'
  ragscope query --rerank bm25 "how do nodes talk?"    # reranked: movement, both scores
  pbpaste | ragscope query --selected-text - --source-doc docs/intro.md "summarise this"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return Usagef("%s takes exactly one QUESTION argument (quote it), got %d", cmd.Name(), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !changedFlag(cmd.Flags(), "top-k") {
				qf.topK = a.Cfg.TopK
			}
			if !changedFlag(cmd.Flags(), "threshold") {
				qf.threshold = a.Cfg.Threshold
			}
			if !changedFlag(cmd.Flags(), "no-dedup") {
				qf.noDedup = !a.Cfg.Dedup
			}
			if vs := vsSetups(cmd); len(vs) > 0 {
				return a.runQueryVs(cmd, args[0], qf, vs)
			}
			return run(cmd, args[0], qf)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&qf.topK, "top-k", "k", 5, "number of chunks to retrieve, 1..100 (env RAGSCOPE_TOP_K)")
	f.Float64Var(&qf.threshold, "threshold", 0, "minimum score a chunk needs, 0..1 (env RAGSCOPE_THRESHOLD)")
	f.StringArrayVar(&qf.modules, "module", nil, "only chunks of this module (repeatable: any of)")
	f.StringArrayVar(&qf.chapters, "chapter", nil, "only chunks of this chapter (repeatable: any of)")
	f.StringArrayVar(&qf.types, "type", nil, "only chunks of this content type (repeatable: any of)")
	f.StringArrayVar(&qf.tags, "tag", nil, "only chunks with this tag (repeatable: any of)")
	f.BoolVar(&qf.noDedup, "no-dedup", false, "keep near-duplicate chunks")
	f.BoolVar(&qf.json, "json", false, "print the result as JSON (schema: docs/reference.md)")
	f.BoolVar(&qf.context, "context", false, "also print the grounded system instruction and context")
	f.StringVar(&qf.selected, "selected-text", "", "selected-text mode: TEXT, or - to read it from standard input")
	f.StringVar(&qf.sourceDoc, "source-doc", "", "selected-text mode: doc path the selection comes from")
	f.StringVar(&qf.sourceSection, "source-section", "", "selected-text mode: section the selection comes from")
	return cmd
}

func (a *App) runQuery(cmd *cobra.Command, question string, qf queryFlags) error {
	be, res, jr, err := a.retrieveJudged(cmd, question, qf)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if qf.json {
		doc := queryJSON(be, res)
		jr.addJSON(&doc)
		qf.diag.addJSON(&doc)
		qf.explain.addJSON(&doc, qf.diag)
		if err := writeJSON(out, doc); err != nil {
			return err
		}
	} else {
		writeQueryText(out, be, res, qf.context, jr.judgements())
		jr.writeText(out)
		qf.diag.writeText(out)
		qf.explain.writeText(out, &res, qf.diag)
		for _, n := range be.Notes {
			fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", cleanLine(n))
		}
	}
	if len(res.Hits) == 0 {
		return &ExitError{Code: ExitNoResults}
	}
	// The hits are printed, each "not judged" with why; a judging that
	// graded none of them fails closed.
	return jr.gate()
}

// retrieveFor runs the query the flags describe and returns the backend
// and the result (its timings include the index load a one-shot run paid).
// retrieveJudged is retrieveFor with --judge: the judge is opened (its
// settings checked) before anything is searched, then grades the result
// (jr is nil without --judge).
func (a *App) retrieveJudged(cmd *cobra.Command, question string, qf queryFlags) (be *app.Backend, res retrieval.Result, jr *judgeRun, err error) {
	jdg, err := a.openJudge(qf.judge)
	if err != nil {
		return nil, res, nil, err
	}
	be, res, err = a.retrieveFor(cmd, question, qf)
	if err != nil {
		return nil, res, nil, err
	}
	jr, err = a.judgeResult(cmd, jdg, res)
	return be, res, jr, err
}

// query is the normal-mode query the flags describe, reranked as rerank
// says.
func (qf queryFlags) query(question string, rerank retrieval.RerankOptions) retrieval.Query {
	return retrieval.Query{
		Question:  question,
		Mode:      retrieval.ModeNormal,
		TopK:      qf.topK,
		Threshold: qf.threshold,
		Filters: retrieval.Filters{
			Modules: qf.modules, Chapters: qf.chapters, ContentTypes: qf.types, Tags: qf.tags,
		},
		NoDedup: qf.noDedup,
		Rerank:  rerank,
	}
}

func (a *App) retrieveFor(cmd *cobra.Command, question string, qf queryFlags) (*app.Backend, retrieval.Result, error) {
	q := qf.query(question, a.setup().RerankOptions())
	if changedFlag(cmd.Flags(), "selected-text") {
		text := qf.selected
		if text == "-" {
			b, err := readlimit.Read(a.Stdin, readlimit.Stdin)
			if errors.Is(err, readlimit.ErrTooLarge) {
				return nil, retrieval.Result{}, Usagef("the selected text on standard input is %s: select less", err)
			}
			if err != nil {
				return nil, retrieval.Result{}, fmt.Errorf("read selected text from standard input: %w", err)
			}
			text = string(b)
		}
		q.Mode = retrieval.ModeSelectedText
		q.SelectedText = text
		q.SourceDocPath = qf.sourceDoc
		q.SourceSection = qf.sourceSection
	} else if qf.sourceDoc != "" || qf.sourceSection != "" {
		return nil, retrieval.Result{}, Usagef("--source-doc and --source-section go with --selected-text")
	}
	// Validate before opening a backend: bad input costs no network call.
	if _, _, _, err := retrieval.Normalize(q); err != nil {
		return nil, retrieval.Result{}, err
	}
	ctx := cmd.Context()
	be, err := a.OpenBackend(ctx, q.Mode == retrieval.ModeSelectedText)
	if err != nil {
		return nil, retrieval.Result{}, err
	}
	if q.Mode == retrieval.ModeSelectedText && q.SourceDocPath != "" {
		app.DemoTitles(ctx, be)
	}
	ctx, cancel := a.withTimeout(ctx)
	defer cancel()
	// evalgate: the pipeline checks the collection (exists, vector size)
	// concurrently with the question's embedding; no separate check first.
	var res retrieval.Result
	qf.explain.start(ctx, be, q)
	if qf.diag.active() {
		res, err = qf.diag.retrieve(ctx, be, q)
	} else {
		res, err = be.Pipeline.Retrieve(ctx, q)
	}
	if err != nil {
		return nil, retrieval.Result{}, err
	}
	if len(res.Hits) == 0 {
		if err := checkFilterValues(ctx, be, q.Filters); err != nil {
			return nil, retrieval.Result{}, err
		}
	}
	if err := qf.explain.finish(ctx, be, q, &res, qf.diag); err != nil {
		return nil, retrieval.Result{}, err
	}
	// A one-shot query paid for loading the index: say so.
	res.Timings.Load = be.Load
	res.Timings.Total += be.Load
	return be, res, nil
}

// writeQueryText prints a result for people. Every string from the
// collection goes through clean (no terminal escapes reach the screen).
// judged, when not nil, holds the judge's grade of each hit, in order.
func writeQueryText(w io.Writer, be *app.Backend, res retrieval.Result, withContext bool, judged []judge.Judgement) {
	fmt.Fprintln(w, header(be))
	mode := ""
	if res.Mode == retrieval.ModeSelectedText {
		mode = " · selected text only (no vector search)"
	}
	fmt.Fprintf(w, "Query: %q%s\n", cleanLine(res.Question), mode)
	if res.Truncated {
		fmt.Fprintf(w, "Note: the question had %d characters and was truncated to %d before embedding.\n", res.OriginalLength, retrieval.MaxQuestionLen)
	}
	if res.Mode == retrieval.ModeNormal {
		fmt.Fprintf(w, "top_k %d · threshold %.2f · dedup %s%s%s\n", res.Params.TopK, res.Params.Threshold, present.OnOff(res.Params.Dedup), filterText(res.Params.Filters), rerankParamsText(res))
	}
	fmt.Fprintln(w)
	if len(res.Hits) == 0 {
		fmt.Fprintln(w, "No results. Try a lower --threshold, fewer filters or other words.")
	}
	moves := res.Movements()
	for i, h := range res.Hits {
		var m *retrieval.Movement
		if moves != nil {
			m = &moves[i]
		}
		fmt.Fprintf(w, "%2d. %s%s %s\n", h.Rank, gradeCell(judged, i), hitRanksText(h, m, present.FirstStage(res.Params.Ranking)), present.Title(&h.Chunk))
		if place := present.Place(&h.Chunk); place != "" {
			fmt.Fprintf(w, "    %s\n", place)
		}
		if h.Citation.URL != "" {
			fmt.Fprintf(w, "    %s\n", present.URL(h.Citation.URL))
		} else {
			fmt.Fprintln(w, "    (no citation URL: the chunk has neither a URL nor a doc path)")
		}
		fmt.Fprintf(w, "    %s\n", present.Preview(h.Chunk.Text, 110))
		if arms := present.Arms(h.Arms, h.Rank, h.Score); arms != "" {
			fmt.Fprintf(w, "    %s\n", arms)
		}
		writeJudgeLine(w, judged, i)
	}
	writeRerankText(w, res)
	if len(res.Dropped) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Left out (%d):\n", len(res.Dropped))
		for _, d := range res.Dropped {
			// The end of the URL tells apart two sections of one title.
			fmt.Fprintf(w, "  - [%.3f] %s: %s  %s\n", d.Score, dropReason(d, res.Params.Threshold), present.Title(&d.Chunk), present.FitURL(d.Citation.URL, droppedURLWidth))
		}
	}
	if withContext {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "System instruction:")
		fmt.Fprintln(w, res.Grounded.Instruction)
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Context (%d characters, ~%d tokens):\n", len([]rune(res.Grounded.Context)), present.Tokens(res.Grounded.Context))
		shown := present.RankedContext(res)
		if shown != res.Grounded.Context {
			fmt.Fprintln(w, present.RankedContextNote)
		}
		fmt.Fprintln(w, cleanText(shown))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s · %s\n", present.Count(len(res.Hits), "result", "results"), present.Timings(res.Timings, res.Mode))
}

// droppedURLWidth is the room of a left-out hit's URL in the text output
// (present.FitURL keeps its end).
const droppedURLWidth = 48

func dropReason(d retrieval.DroppedHit, threshold float64) string {
	if d.Reason == retrieval.ReasonDuplicate {
		return fmt.Sprintf("%s (similarity %.2f)", present.DropReason(d, threshold), d.Similarity)
	}
	return present.DropReason(d, threshold)
}

func filterText(f retrieval.Filters) string {
	if f.IsEmpty() {
		return ""
	}
	return " · filters " + present.Filters(f)
}
