package app

import (
	"context"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
	"ragscope/ui"
)

// explorerJudge is the explorer's judge (key J) on the chat model gen:
// the judge, prompts and cache of `query --judge` and `ask --judge`. No
// chat model is no judge (the key says what enables one).
func (as *Assembler) explorerJudge(gen retrieval.Generator) ui.JudgeSetup {
	if gen == nil {
		return ui.JudgeSetup{}
	}
	j, err := newJudge(gen, as.JudgeCache, judge.DefaultConcurrency)
	if err != nil {
		return ui.JudgeSetup{}
	}
	return ui.JudgeSetup{
		Model: j.Model(),
		Relevance: func(ctx context.Context, question string, hits []retrieval.Hit) ([]judge.Judgement, judge.Stats, error) {
			return JudgeHits(ctx, j, question, hits)
		},
		Faithfulness: func(ctx context.Context, res retrieval.Result, ans retrieval.Answer) (judge.Faithfulness, judge.Stats, error) {
			item := judge.FaithItem{Question: res.Question, Answer: ans.Text, Sources: judge.SourcesOf(retrieval.NewPrompt(res))}
			fs, st, err := j.Faithfulness(ctx, []judge.FaithItem{item}, nil)
			return fs[0], st, err
		},
	}
}
