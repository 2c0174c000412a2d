//go:build unix

package chatcache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestEntryThatIsAPipeIsAMiss: a named pipe in place of an entry (in the
// judge's or golden generate's cache) is a miss found without waiting for
// a writer, and Put leaves it as it is.
func TestEntryThatIsAPipeIsAMiss(t *testing.T) {
	c := Open(t.TempDir())
	key := Key("model", "prompt", "question")
	p, err := c.path(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var ok bool
	done := make(chan struct{})
	go func() { defer close(done); _, ok = c.Get(key) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Get blocked on a pipe in the cache folder")
	}
	if ok {
		t.Error("a pipe was a hit")
	}
	if err := c.Put(key, []byte(`{"x":1}`)); err == nil {
		t.Error("Put over a pipe: no error")
	}
	if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st, err)
	}
}
