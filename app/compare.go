package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local"
)

// OpenAll opens setups concurrently for one comparison (eval --vs, query
// --vs): backends[i] and errs[i] are setups[i]'s, as Open would give them.
//
// What the setups have in common is loaded once: setups on the demo, on
// one index file whose questions the offline embedder embeds, or on one
// docs folder cut the same way share the read-only index (each setup
// keeps its own view of it, with its own search mode, URLs and
// reranker) and one memo of question vectors (Backend.QuestionMemo), so a
// question that two setups' eval batches ask is embedded once. An index whose questions a provider
// embeds is loaded by each setup for itself, with its own keys and
// limits. The sharing ends with the call: nothing is kept for later
// opens.
func (as *Assembler) OpenAll(ctx context.Context, setups []Setup, mode Mode) ([]*Backend, []error) {
	sub := *as
	sub.share = &loadShare{loads: map[string]func() (*sharedLoad, error){}}
	backends := make([]*Backend, len(setups))
	errs := make([]error, len(setups))
	var wg sync.WaitGroup
	for i, s := range setups {
		wg.Go(func() { backends[i], errs[i] = sub.Open(ctx, s, mode) })
	}
	wg.Wait()
	return backends, errs
}

// loadShare is the loads of one OpenAll call, by what was loaded: each
// runs once, for the first setup that asks, and the others wait for it.
type loadShare struct {
	mu    sync.Mutex
	loads map[string]func() (*sharedLoad, error)
}

// sharedLoad is one load of an index, shared by the setups that asked for
// the same one.
type sharedLoad struct {
	ix     *local.Index
	corpus *local.Corpus
	// memo is the corpus's query embedder behind the setups' shared memo
	// (nil for a load no other setup may share).
	memo *memoEmbedder
	took time.Duration
	// private is set when the load built a setup's own query embedder (a
	// provider's): the load is that setup's alone.
	private bool
}

// loadFunc loads an index; private reports that it built a setup's own
// query embedder.
type loadFunc func() (ix *local.Index, corpus *local.Corpus, private bool, err error)

// run runs fn, timed; with memo, the load gets a memo of question vectors
// that the setups sharing it embed through.
func (fn loadFunc) run(memo bool) (*sharedLoad, error) {
	start := time.Now()
	ix, corpus, private, err := fn()
	if err != nil {
		return &sharedLoad{private: private}, err
	}
	sl := &sharedLoad{ix: ix, corpus: corpus, took: time.Since(start), private: private}
	if memo && !private {
		sl.memo = newMemoEmbedder(corpus.Embedder)
	}
	return sl, nil
}

// load runs fn, or waits for the setup that runs the same load (key) and
// shares its index. A nil share and an empty key run fn for the caller
// alone, as does a load that turned out private (each setup then loads
// for itself).
func (ls *loadShare) load(key string, fn loadFunc) (*sharedLoad, error) {
	if ls == nil || key == "" {
		return fn.run(false)
	}
	ls.mu.Lock()
	shared, found := ls.loads[key]
	if !found {
		shared = sync.OnceValues(func() (*sharedLoad, error) { return fn.run(true) })
		ls.loads[key] = shared
	}
	ls.mu.Unlock()
	sl, err := shared()
	if found && sl.private {
		return fn.run(false)
	}
	return sl, err
}

// fileKey is the share key of an index file: its absolute path, size and
// modification time ("" when it cannot be read: its own load says why).
func fileKey(kind, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	st, err := os.Stat(abs)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d", kind, abs, st.Size(), st.ModTime().UnixNano())
}

// memoEmbedder embeds each distinct text once for every setup that shares
// it: a text another caller is embedding is waited for, not embedded
// again. A failed call is not remembered.
type memoEmbedder struct {
	retrieval.Embedder
	mu   sync.Mutex
	vecs map[string]*memoVec
}

// memoVec is one text's vector, ready when done is closed.
type memoVec struct {
	done chan struct{}
	vec  []float32
	err  error
}

func newMemoEmbedder(e retrieval.Embedder) *memoEmbedder {
	return &memoEmbedder{Embedder: e, vecs: map[string]*memoVec{}}
}

// memoPart is the most texts of one call to the memo's embedder.
const memoPart = 4

// embedPart embeds texts, whose entries are at, and makes them ready; a
// failure is not remembered.
func (m *memoEmbedder) embedPart(ctx context.Context, texts []string, at []*memoVec) error {
	vecs, err := m.Embedder.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("%w: the embedder returned %d vectors for %d texts", retrieval.ErrUnavailable, len(vecs), len(texts))
	}
	if err != nil {
		m.mu.Lock()
		for _, t := range texts {
			delete(m.vecs, t)
		}
		m.mu.Unlock()
	}
	for j, e := range at {
		if err != nil {
			e.err = err
		} else {
			e.vec = vecs[j]
		}
		close(e.done)
	}
	return err
}

// Embed returns one vector per text, in order, each a copy of the memo's.
func (m *memoEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	entries := make([]*memoVec, len(texts))
	var mine []string
	var mineAt []*memoVec
	m.mu.Lock()
	for i, t := range texts {
		e, ok := m.vecs[t]
		if !ok {
			e = &memoVec{done: make(chan struct{})}
			m.vecs[t] = e
			mine = append(mine, t)
			mineAt = append(mineAt, e)
		}
		entries[i] = e
	}
	m.mu.Unlock()
	// The texts this call embeds go in small parts, a core each, and each
	// part's vectors are ready as soon as it is done: a setup waiting on
	// one question the other setup's batch holds gets it early.
	var wg sync.WaitGroup
	errs := make([]error, (len(mine)+memoPart-1)/memoPart)
	workers := make(chan struct{}, runtime.GOMAXPROCS(0))
	for p := range errs {
		lo, hi := p*memoPart, min((p+1)*memoPart, len(mine))
		wg.Go(func() {
			workers <- struct{}{}
			defer func() { <-workers }()
			errs[p] = m.embedPart(ctx, mine[lo:hi], mineAt[lo:hi])
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first part's failure: the others' is alike
		}
	}
	out := make([][]float32, len(texts))
	for i, e := range entries {
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			return nil, e.err
		}
		out[i] = append([]float32(nil), e.vec...)
	}
	return out, nil
}
