package embedcache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fake embeds a text as [len(text), 1] and records its calls.
type fake struct {
	mu       sync.Mutex
	batches  [][]string
	inFlight atomic.Int32
	most     atomic.Int32
	release  chan struct{}
	failAt   int
}

func (f *fake) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.most.Load()
		if n <= m || f.most.CompareAndSwap(m, n) {
			break
		}
	}
	if f.release != nil {
		<-f.release
	}
	f.mu.Lock()
	f.batches = append(f.batches, slices.Clone(texts))
	call := len(f.batches)
	f.mu.Unlock()
	if f.failAt > 0 && call >= f.failAt {
		return nil, errors.New("provider down")
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("chunk %d", i)
	}
	return out
}

func TestEmbedAllBatchesAndCaches(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	key := Key{Provider: "p", Model: "m", InputType: "doc"}
	store := Open(dir, key)
	in := append(texts(250), "chunk 3") // a repeated text is embedded once
	f := &fake{}
	var seen []int
	res, err := EmbedAll(ctx, f, store, in, Options{Batch: 96, Concurrency: 2, Progress: func(done int) { seen = append(seen, done) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 3 || res.Embedded != 250 || res.Cached != 0 || len(f.batches) != 3 {
		t.Fatalf("result %+v, %d batches", res, len(f.batches))
	}
	for i, v := range res.Vectors {
		if len(v) != 2 || v[0] != float32(len(in[i])) {
			t.Fatalf("vector %d = %v", i, v)
		}
	}
	if seen[len(seen)-1] != len(in) {
		t.Errorf("progress %v", seen)
	}
	// Again, with one text changed: only it is embedded.
	in[10] = "an edited chunk"
	f = &fake{}
	store = Open(dir, key) // another process: the file is read again
	res, err = EmbedAll(ctx, f, store, in, Options{Batch: 96})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 1 || res.Embedded != 1 || res.Cached != len(in)-1 || !slices.Equal(f.batches[0], []string{"an edited chunk"}) {
		t.Fatalf("re-run: %+v, %v", res, f.batches)
	}
	// Another key shares nothing.
	other := Open(dir, Key{Provider: "p", Model: "m", Dimensions: 256, InputType: "doc"})
	if _, ok := other.Get("chunk 1"); ok {
		t.Error("a vector of another size was found")
	}
	// A damaged tail (a write cut short) is a miss, never an error.
	raw, err := os.ReadFile(store.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store.Path(), raw[:len(raw)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	again := Open(dir, key)
	if _, ok := again.Get("chunk 0"); !ok || again.Len() != 250 {
		t.Errorf("after a cut: %d vectors", again.Len())
	}
	if _, ok := again.Get("an edited chunk"); ok {
		t.Error("the damaged record was read")
	}
}

func TestEmbedAllKeepsCallsInFlight(t *testing.T) {
	f := &fake{release: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := EmbedAll(context.Background(), f, nil, texts(10), Options{Batch: 1, Concurrency: 3})
		done <- err
	}()
	// Three calls wait together before any ends: a fourth never starts
	// while they wait.
	for f.inFlight.Load() < 3 {
		runtime.Gosched()
	}
	close(f.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if m := f.most.Load(); m != 3 {
		t.Errorf("at most %d calls in flight, want 3", m)
	}
}

func TestEmbedAllFailureKeepsWhatWasPaidFor(t *testing.T) {
	store := Open(t.TempDir(), Key{Provider: "p", Model: "m"})
	f := &fake{failAt: 3}
	res, err := EmbedAll(context.Background(), f, store, texts(50), Options{Batch: 10, Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "provider down") {
		t.Fatalf("err = %v", err)
	}
	if n := Open(filepath.Dir(store.Path()), Key{Provider: "p", Model: "m"}).Len(); res.Embedded != 20 || n != 20 {
		t.Errorf("embedded %d, cached %d, want 20", res.Embedded, n)
	}
}

func TestBatchesBoundTokens(t *testing.T) {
	long := strings.Repeat("x", 300) // 101 estimated tokens
	got := batches([]string{long, long, long, "a", "b"}, 4, 250)
	if len(got) != 2 || len(got[0]) != 2 || len(got[1]) != 3 {
		t.Errorf("batches %v", got)
	}
}
