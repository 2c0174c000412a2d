package chatcache

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestKeyIsLengthPrefixedAndStable(t *testing.T) {
	if Key("ab", "c") == Key("a", "bc") {
		t.Fatal("parts run together")
	}
	first, again := Key("m", "v1", "q", Hash("t")), Key("m", "v1", "q", Hash("t"))
	if first != again {
		t.Fatal("not stable")
	}
	for _, other := range []string{Key("m2", "v1", "q", Hash("t")), Key("m", "v2", "q", Hash("t")), Key("m", "v1", "q2", Hash("t")), Key("m", "v1", "q", Hash("t2"))} {
		if other == Key("m", "v1", "q", Hash("t")) {
			t.Fatal("a part does not change the key")
		}
	}
}

func TestPutGetAtomicAndBounded(t *testing.T) {
	c := Open(filepath.Join(t.TempDir(), "judge"))
	k := Key("x")
	if _, ok := c.Get(k); ok {
		t.Fatal("hit in an empty cache")
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); _ = c.Put(k, []byte(`{"grade":2}`)) }()
	}
	wg.Wait()
	if v, ok := c.Get(k); !ok || string(v) != `{"grade":2}` {
		t.Fatalf("got %q %v", v, ok)
	}
	if c.Len() != 1 {
		t.Fatalf("%d entries (temporary files left?)", c.Len())
	}
	if err := c.Put(k, []byte(strings.Repeat("x", MaxEntry+1))); err == nil {
		t.Fatal("oversized entry stored")
	}
	// An entry grown past the bound on disk is a miss.
	p, _ := c.path(k)
	if err := os.WriteFile(p, []byte(strings.Repeat("x", MaxEntry+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(k); ok {
		t.Fatal("oversized entry read")
	}
	if err := c.Put("../../etc", nil); err == nil {
		t.Fatal("bad key accepted")
	}
}

func TestDirIsUnderUserCacheDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg-test")
	t.Setenv("HOME", "/tmp/home-test")
	d, err := Dir("judge")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := os.UserCacheDir()
	if d != filepath.Join(base, "ragscope", "judge") {
		t.Fatalf("dir %s", d)
	}
}
