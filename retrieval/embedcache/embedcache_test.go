package embedcache

import (
	"context"
	"errors"
	"fmt"
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
	store := Open(t.TempDir(), Key{Provider: "p", Model: "m", InputType: "doc"})
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
	res, err = EmbedAll(ctx, f, store, in, Options{Batch: 96})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 1 || res.Embedded != 1 || res.Cached != len(in)-1 || !slices.Equal(f.batches[0], []string{"an edited chunk"}) {
		t.Fatalf("re-run: %+v, %v", res, f.batches)
	}
	// Another key shares nothing.
	other := Open(store.c.Dir(), Key{Provider: "p", Model: "m", Dimensions: 256, InputType: "doc"})
	if _, ok := other.Get("chunk 1"); ok {
		t.Error("a vector of another size was found")
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
	if res.Embedded != 20 || store.c.Len() != 20 {
		t.Errorf("embedded %d, cached %d, want 20", res.Embedded, store.c.Len())
	}
}

func TestBatchesBoundTokens(t *testing.T) {
	long := strings.Repeat("x", 300) // 101 estimated tokens
	got := batches([]string{long, long, long, "a", "b"}, 4, 250)
	if len(got) != 2 || len(got[0]) != 2 || len(got[1]) != 3 {
		t.Errorf("batches %v", got)
	}
}
