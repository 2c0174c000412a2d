package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/present"
	"ragscope/retrieval"
)

func (a *App) newAskCmd() *cobra.Command {
	jf := &judgeFlags{}
	cmd := a.queryCommand(func(cmd *cobra.Command, question string, qf queryFlags) error {
		qf.judge = jf
		return a.runAsk(cmd, question, qf)
	})
	jf.register(cmd, false)
	cmd.Use = "ask QUESTION"
	cmd.Short = "Retrieve, then answer from exactly that context with a chat model, and show what the answer cites"
	cmd.Long = `Retrieve the chunks QUESTION gets (as 'ragscope query' does, with every
query flag), then send the grounded instruction and context to a chat model
and print its answer, streamed on a terminal, with its citations tied to
the ranks of the hits, and which hits it cited and which it did not.

The chat model: --chat-provider cohere (Cohere Chat v2, COHERE_API_KEY) or
openai (OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible
server such as Ollama, vLLM or LM Studio); auto takes the embedder's
provider, else whichever key or base URL is set. --chat-model picks the
model. When nothing was retrieved, no model is asked: the answer is the
refusal. Without a chat model ask prints the retrieval, says which
variables enable answers and exits 2.

Exit codes: 0 answered, 1 no results (the refusal, nothing sent), 2 no chat
model or bad config, 3 backend or chat model unreachable or refused, 64 bad
usage.`
	cmd.Example = `  COHERE_API_KEY=… ragscope ask "What is ROS 2?"
  OPENAI_BASE_URL=http://localhost:11434/v1 ragscope ask --chat-model llama3.2 "how do nodes talk?"
  ragscope ask --json "what is URDF?" | jq '.answer.cited_ranks'`
	return cmd
}

func (a *App) runAsk(cmd *cobra.Command, question string, qf queryFlags) error {
	// A chat model that is misconfigured fails before any retrieval; one
	// that is not configured at all still gets the retrieval printed.
	gen, genErr := a.assembler().Generator(a.setup())
	if genErr != nil && !errors.Is(genErr, retrieval.ErrNoGenerator) {
		return genErr
	}
	be, res, jr, err := a.retrieveJudged(cmd, question, qf)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	// Without a chat model the answer is the context a model would get:
	// the system instruction and grounded context, as --context (and the
	// explorer's context pane) shows them.
	noModel := gen == nil && res.Grounded.Sufficient
	if noModel {
		// Said before the listing, not after some 60 lines of context:
		// the exit code (2) is the same, the message is not repeated.
		fmt.Fprintf(cmd.ErrOrStderr(), "ragscope: %s\n", a.redactText(errorLine(noModelError(genErr, qf.json))))
	}
	if !qf.json {
		writeQueryText(out, be, res, qf.context || noModel, jr.judgements())
		fmt.Fprintln(out)
	}
	ans, ansErr := answerAsk(cmd, gen, genErr, res, qf.json)
	if err := a.judgeAnswer(cmd, jr, res, ans, ansErr); err != nil {
		return err
	}
	if err := writeAsk(out, be, res, jr, ans, ansErr, qf.json); err != nil {
		return err
	}
	for _, n := range be.Notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", cleanLine(n))
	}
	switch {
	case ansErr != nil && errors.Is(ansErr, retrieval.ErrNoGenerator):
		return &ExitError{Code: ExitConfig} // said before the context
	case ansErr != nil:
		return ansErr
	case ans.Refused:
		return &ExitError{Code: ExitNoResults}
	}
	// A judging that graded none of the hits fails closed.
	return jr.gate()
}

// answerAsk answers the question from res: the refusal when the context
// is not sufficient (nothing is sent), genErr when no chat model is
// configured, else gen's answer, streamed to standard output when it is
// a terminal and the output is not JSON. A failed generation keeps the
// text it streamed, if any.
func answerAsk(cmd *cobra.Command, gen retrieval.Generator, genErr error, res retrieval.Result, json bool) (retrieval.Answer, error) {
	ctx, out := cmd.Context(), cmd.OutOrStdout()
	switch {
	case !res.Grounded.Sufficient:
		ans, _ := retrieval.Generate(ctx, nil, res, nil) // the refusal; nothing is sent
		return ans, nil
	case gen == nil:
		return retrieval.Answer{}, genErr
	}
	stream := !json && isTerminal(out)
	if !json {
		fmt.Fprintf(out, "Answer · %s %s\n", gen.Provider(), cleanLine(gen.Model()))
	}
	var onDelta func(retrieval.Delta)
	if stream {
		onDelta = func(d retrieval.Delta) { fmt.Fprint(out, cleanText(d.Text)) }
	}
	ans, err := retrieval.Generate(ctx, gen, res, onDelta)
	if stream && ans.Text != "" {
		fmt.Fprintln(out)
	}
	if err != nil && ans.Text == "" {
		ans = retrieval.Answer{}
	}
	return ans, err
}

// writeAsk prints the retrieval's JSON with the answer (none when the
// generation failed with no text), or the answer's text and the judging.
func writeAsk(out io.Writer, be *app.Backend, res retrieval.Result, jr *judgeRun, ans retrieval.Answer, ansErr error, json bool) error {
	if !json {
		writeAnswerText(out, res, ans, ansErr == nil && res.Grounded.Sufficient && !isTerminal(out))
		jr.writeText(out)
		return nil
	}
	doc := AskJSON{QueryJSON: queryJSON(be, res)}
	jr.addJSON(&doc.QueryJSON)
	if ansErr == nil || ans.Text != "" {
		aj := answerJSON(ans, res.Grounded.Sufficient)
		doc.Answer = &aj
	}
	return writeJSON(out, doc)
}

// noModelError is what ask says, first, when no chat model is configured:
// why, and that the context a model would get follows instead (text
// output only).
func noModelError(err error, json bool) error {
	if json {
		return err
	}
	return fmt.Errorf("%w (the context a model would get follows; 'ragscope query --context' shows it alone)", err)
}

// writeAnswerText prints an answer for people: its text (when it was not
// streamed already) with citations as result ranks, each citation, the
// cited and uncited hits, warnings and usage. Model text is sanitised.
func writeAnswerText(w io.Writer, res retrieval.Result, ans retrieval.Answer, printText bool) {
	if ans.Refused {
		fmt.Fprintln(w, "Answer · not generated (nothing relevant was retrieved)")
		fmt.Fprintln(w, ans.Text)
		return
	}
	if ans.Text == "" {
		return
	}
	if printText {
		fmt.Fprintln(w, cleanText(ans.Annotated()))
	}
	byRank := map[int]retrieval.Hit{}
	for _, h := range res.Hits {
		byRank[h.Rank] = h
	}
	if len(ans.Citations) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Citations:")
		for _, c := range ans.Citations {
			var ranks []string
			for i, r := range c.Ranks {
				if r == 0 {
					ranks = append(ranks, fmt.Sprintf("[Source %d] (not in the context)", c.Sources[i]))
					continue
				}
				ranks = append(ranks, "#"+strconv.Itoa(r))
			}
			fmt.Fprintf(w, "  %s ← %q\n", strings.Join(ranks, ", "), present.Preview(c.Text, 80))
		}
	}
	fmt.Fprintln(w)
	if len(ans.Cited) > 0 {
		fmt.Fprintln(w, "Cited:")
		for _, r := range ans.Cited {
			h := byRank[r]
			fmt.Fprintf(w, "  #%d %s  %s\n", r, present.Title(&h.Chunk), cleanLine(h.Citation.URL))
		}
	}
	if len(ans.Uncited) > 0 {
		var parts []string
		for _, r := range ans.Uncited {
			c := byRank[r].Chunk
			parts = append(parts, "#"+strconv.Itoa(r)+" "+present.Title(&c))
		}
		fmt.Fprintf(w, "Not cited: %s\n", strings.Join(parts, " · "))
	}
	for _, warn := range ans.Warnings(res.Grounded.Sufficient) {
		fmt.Fprintf(w, "Warning: %s\n", warn)
	}
	usage := fmt.Sprintf("%d input + %d output tokens", ans.Usage.InputTokens, ans.Usage.OutputTokens)
	if ans.Usage == (retrieval.Usage{}) {
		usage = "usage not reported"
	}
	fmt.Fprintf(w, "%s · first text %s · total %s\n", usage,
		strconv.FormatFloat(ms(ans.Timings.FirstToken), 'f', 0, 64)+" ms", strconv.FormatFloat(ms(ans.Timings.Total), 'f', 0, 64)+" ms")
}

// AskJSON is the JSON document of `ragscope ask --json`: the query
// document plus the answer (null when no chat model answered).
type AskJSON struct {
	QueryJSON
	Answer *AnswerJSON `json:"answer"`
}

// AnswerJSON is a generated answer and what it cites. Text is the model's
// text as written (JSON-escaped, not sanitised).
type AnswerJSON struct {
	Text string `json:"text"`
	// Refused is true when nothing relevant was retrieved: no model was
	// asked and Text is the refusal.
	Refused        bool                       `json:"refused"`
	Provider       string                     `json:"provider"`
	Model          string                     `json:"model"`
	Citations      []retrieval.AnswerCitation `json:"citations"`
	CitedRanks     []int                      `json:"cited_ranks"`
	UncitedRanks   []int                      `json:"uncited_ranks"`
	UnknownSources []int                      `json:"unknown_sources"`
	Warnings       []string                   `json:"warnings"`
	Usage          retrieval.Usage            `json:"usage"`
	FinishReason   string                     `json:"finish_reason,omitempty"`
	TimingsMS      AnswerTimingsJSON          `json:"timings_ms"`
}

// AnswerTimingsJSON are generation timings in milliseconds.
type AnswerTimingsJSON struct {
	FirstToken float64 `json:"first_token"`
	Total      float64 `json:"total"`
}

func answerJSON(a retrieval.Answer, sufficient bool) AnswerJSON {
	out := AnswerJSON{
		Text: a.Text, Refused: a.Refused, Provider: a.Provider, Model: a.Model,
		Citations: a.Citations, CitedRanks: a.Cited, UncitedRanks: a.Uncited, UnknownSources: a.Unknown,
		Warnings: a.Warnings(sufficient), Usage: a.Usage, FinishReason: a.FinishReason,
		TimingsMS: AnswerTimingsJSON{FirstToken: ms(a.Timings.FirstToken), Total: ms(a.Timings.Total)},
	}
	for _, p := range []*[]int{&out.CitedRanks, &out.UncitedRanks, &out.UnknownSources} {
		if *p == nil {
			*p = []int{}
		}
	}
	if out.Citations == nil {
		out.Citations = []retrieval.AnswerCitation{}
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	return out
}
