package app

import (
	"os"
	"path/filepath"
	"testing"
)

func TestJudgeCacheDir(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	d, err := JudgeCacheDir(env(map[string]string{"XDG_CACHE_HOME": "/x/cache"}))
	if err != nil || d != filepath.Join("/x/cache", "ragscope", "judge") {
		t.Fatalf("%q %v", d, err)
	}
	// A relative XDG_CACHE_HOME is ignored, as the XDG spec says.
	d, err = JudgeCacheDir(env(map[string]string{"XDG_CACHE_HOME": "rel"}))
	base, berr := os.UserCacheDir()
	if berr == nil && (err != nil || d != filepath.Join(base, "ragscope", "judge")) {
		t.Fatalf("%q %v", d, err)
	}
}
