package app

import (
	"context"
	"fmt"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
	"ragscope/retrieval/provider/chattask"
)

// ChatDownError is a batch of chat-model tasks (judging hits, writing
// golden questions) stopped because the chat model failed call after call:
// its message says how many calls failed, the last cause and the items
// left untried. The commands tell it from other failures with errors.As.
type ChatDownError = chattask.DownError

// Judge builds the judge of the setup's chat model, caching in cacheDir
// ("" keeps nothing between runs), concurrency calls at a time. No chat
// model is an error matching retrieval.ErrNoGenerator.
func (as *Assembler) Judge(s Setup, cacheDir string, concurrency int) (*judge.Judge, error) {
	gen, err := as.Generator(s)
	if err != nil {
		return nil, fmt.Errorf("--judge needs a chat model: %w", err)
	}
	return newJudge(gen, cacheDir, concurrency)
}

// newJudge is the judge asking gen, caching in cacheDir ("": nothing
// kept between runs).
func newJudge(gen retrieval.Generator, cacheDir string, concurrency int) (*judge.Judge, error) {
	return judge.New(gen, judge.Options{Cache: openChatCache(cacheDir), Concurrency: concurrency})
}

// JudgeHits grades the relevance of hits to question with j: the one way
// the commands (query --judge, ask --judge) and the explorer (key J) ask
// the judge about a result.
func JudgeHits(ctx context.Context, j *judge.Judge, question string, hits []retrieval.Hit) ([]judge.Judgement, judge.Stats, error) {
	items := make([]judge.Item, len(hits))
	for i, h := range hits {
		items[i] = judge.Item{Question: question, Hit: h}
	}
	return j.Relevance(ctx, items, nil)
}
