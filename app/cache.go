package app

import (
	"path/filepath"

	"ragscope/retrieval/provider/chatcache"
	"ragscope/retrieval/provider/embedcache"
)

// CacheDir is the cache folder of a kind of cached answer ("judge",
// "golden", "embed"): $XDG_CACHE_HOME/ragscope/kind when lookupEnv finds
// an absolute XDG_CACHE_HOME, else under os.UserCacheDir.
func CacheDir(lookupEnv func(string) (string, bool), kind string) (string, error) {
	if lookupEnv != nil {
		if v, ok := lookupEnv("XDG_CACHE_HOME"); ok && filepath.IsAbs(v) {
			return filepath.Join(v, "ragscope", kind), nil
		}
	}
	return chatcache.Dir(kind)
}

// JudgeCacheDir is the judge's cache folder: $XDG_CACHE_HOME/ragscope/judge
// when lookupEnv finds an absolute XDG_CACHE_HOME, else under
// os.UserCacheDir.
func JudgeCacheDir(lookupEnv func(string) (string, bool)) (string, error) {
	return CacheDir(lookupEnv, "judge")
}

// EmbedCacheDir is the document vector cache's folder:
// $XDG_CACHE_HOME/ragscope/embed (CacheDir).
func EmbedCacheDir(lookupEnv func(string) (string, bool)) (string, error) {
	return CacheDir(lookupEnv, embedcache.Kind)
}

// openChatCache is the chat-task cache in dir; nil (nothing kept between
// runs) when dir is "".
func openChatCache(dir string) *chatcache.Cache {
	if dir == "" {
		return nil
	}
	return chatcache.Open(dir)
}
