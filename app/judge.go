package app

import (
	"fmt"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
	"ragscope/retrieval/provider/chatcache"
)

// JudgeCacheDir is the judge's cache folder: $XDG_CACHE_HOME/ragscope/judge
// when lookupEnv finds an absolute XDG_CACHE_HOME, else under
// os.UserCacheDir.
func JudgeCacheDir(lookupEnv func(string) (string, bool)) (string, error) {
	return CacheDir(lookupEnv, "judge")
}

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
	var cache *chatcache.Cache
	if cacheDir != "" {
		cache = chatcache.Open(cacheDir)
	}
	return judge.New(gen, judge.Options{Cache: cache, Concurrency: concurrency})
}
