//go:build unix

package embedcache

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestStoreFileThatIsAPipeIsAMiss: a named pipe where a key's cache file
// goes is never opened in a way that waits for a writer (which would hang
// `index --embedder` forever): every text is a miss, embedded by the
// provider, and the pipe is not written over.
func TestStoreFileThatIsAPipeIsAMiss(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir, Key{Provider: "cohere", Model: "embed-v4.0"})
	if err := syscall.Mkfifo(s.Path(), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f := &fake{}
	var res Result
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err = EmbedAll(context.Background(), f, s, texts(5), Options{Batch: 2})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("EmbedAll blocked on the pipe in the cache folder")
	}
	if err != nil || res.Cached != 0 || res.Embedded != 5 || len(res.Vectors) != 5 || res.Vectors[4] == nil {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if st, err := os.Lstat(s.Path()); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was written over: %v %v", st, err)
	}
	if err := s.Put([]string{"x"}, [][]float32{{1}}); err == nil {
		t.Error("Put into a pipe: no error")
	}
}
