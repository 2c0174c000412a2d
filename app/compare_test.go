package app

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/ui"
)

// countingEmbedder counts the texts it is asked to embed.
type countingEmbedder struct {
	texts atomic.Int64
	fail  atomic.Bool
}

func (e *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if e.fail.Load() {
		return nil, errors.New("boom")
	}
	e.texts.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}
func (e *countingEmbedder) Name() string { return "counting" }
func (e *countingEmbedder) Dim() int     { return 2 }

// The memo embeds each distinct text once however many callers ask at the
// same time, gives each caller its own copy, and forgets a failed call.
func TestMemoEmbedderEmbedsOnce(t *testing.T) {
	ctx := context.Background()
	inner := &countingEmbedder{}
	m := newMemoEmbedder(inner)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			vecs, err := m.Embed(ctx, []string{"a", "bb", "a", "ccc"})
			if err != nil || len(vecs) != 4 || vecs[1][0] != 2 || vecs[2][0] != 1 {
				t.Errorf("Embed: %v %v", vecs, err)
				return
			}
			vecs[0][0] = 99 // the caller's copy
		})
	}
	wg.Wait()
	if n := inner.texts.Load(); n != 3 {
		t.Errorf("%d texts embedded for 3 distinct ones", n)
	}
	if v, _ := m.Embed(ctx, []string{"a"}); v[0][0] != 1 {
		t.Errorf("a caller's change reached the memo: %v", v)
	}
	inner.fail.Store(true)
	if _, err := m.Embed(ctx, []string{"dddd"}); err == nil {
		t.Fatal("a failed call succeeded")
	}
	inner.fail.Store(false)
	if v, err := m.Embed(ctx, []string{"dddd"}); err != nil || v[0][0] != 4 {
		t.Errorf("after a failure: %v %v", v, err)
	}
}

// OpenAll loads what setups share once: two setups on the demo and two on
// one index file each share one index (with their own search modes) and
// one question memo, and answer exactly what they answer opened alone,
// at the same time. Setups on different indexes share nothing.
func TestOpenAllSharesLoads(t *testing.T) {
	ctx := context.Background()
	idx := siteIndex(t)
	setup := func(backend config.Backend, mode string) Setup {
		s := FromConfig(config.Default())
		s.Backend, s.LocalSearch = backend, mode
		if backend == config.BackendLocal {
			s.IndexFile = idx
		}
		return s
	}
	setups := []Setup{setup(config.BackendDemo, "hybrid"), setup(config.BackendDemo, "bm25"), setup(config.BackendLocal, "hybrid"), setup(config.BackendLocal, "embedder")}
	as := &Assembler{}
	bes, errs := as.OpenAll(ctx, setups, Search)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("setup %d: %v", i, err)
		}
	}
	if bes[0].QuestionMemo == nil || bes[0].QuestionMemo != bes[1].QuestionMemo || bes[2].QuestionMemo == nil || bes[2].QuestionMemo != bes[3].QuestionMemo {
		t.Error("setups on one index do not share its question memo")
	}
	if bes[0].QuestionMemo == bes[2].QuestionMemo {
		t.Error("setups on different indexes share a question memo")
	}
	if _, memo := bes[0].Pipeline.Embedder.(*memoEmbedder); memo {
		t.Error("single queries go through the shared memo: their latency would include another setup's batch")
	}
	if alone, _ := as.Open(ctx, setups[0], Search); alone.QuestionMemo != nil {
		t.Error("a setup opened alone has a question memo")
	}
	if bes[0].Search == bes[1].Search || bes[2].Search == bes[3].Search {
		t.Errorf("search modes leaked between setups: %q %q %q %q", bes[0].Search, bes[1].Search, bes[2].Search, bes[3].Search)
	}
	const question = "how do topics and services work?"
	var wg sync.WaitGroup
	for i, s := range setups {
		alone, err := as.Open(ctx, s, Search)
		if err != nil {
			t.Fatal(err)
		}
		want, err := alone.Pipeline.Retrieve(ctx, s.Query(question))
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			wg.Go(func() {
				got, err := bes[i].Pipeline.Retrieve(ctx, s.Query(question))
				if err != nil || !slices.Equal(hitIDs(got), hitIDs(want)) || got.Params.Ranking != want.Params.Ranking {
					t.Errorf("setup %d: shared %v (%s, %v), alone %v (%s)", i, hitIDs(got), got.Params.Ranking, err, hitIDs(want), want.Params.Ranking)
				}
			})
		}
	}
	wg.Wait()
}

// An index file that cannot be read fails every setup on it, each with
// the load's own error.
func TestOpenAllSharedLoadError(t *testing.T) {
	s := FromConfig(config.Default())
	s.Backend, s.IndexFile = config.BackendLocal, filepath.Join(t.TempDir(), "missing.idx")
	_, errs := (&Assembler{}).OpenAll(context.Background(), []Setup{s, s}, Search)
	for i, err := range errs {
		if err == nil {
			t.Errorf("setup %d opened a missing index", i)
		}
	}
	var _ retrieval.Embedder = (*memoEmbedder)(nil)
}

// Work the explorer starts while it draws (opening the split view's setup
// B on its first question) writes no progress line: one written to the
// terminal then tears the explorer's frame.
func TestExplorerCompareOpensQuietly(t *testing.T) {
	ctx := context.Background()
	idx := siteIndex(t)
	as, shown := recordingProgress()
	b := FromConfig(config.Default())
	b.Setup, b.Backend, b.IndexFile = "b", config.BackendLocal, idx
	if _, err := as.Open(ctx, b, Search); err != nil || len(*shown) != 1 {
		t.Fatalf("a command's open shows its progress: %v %q", err, *shown)
	}
	*shown = nil
	c, closeAll := as.ExplorerCompare("", []Setup{b}, "b")
	defer closeAll()
	if _, err := c.Retrieve(ctx, "b", "how do topics work?"); err != nil {
		t.Fatal(err)
	}
	if len(*shown) != 0 {
		t.Errorf("progress shown while the explorer draws: %q", *shown)
	}
}

// The explorer opens its backend after its first frame, while it draws:
// opening writes no progress line either.
func TestExplorerOpensQuietly(t *testing.T) {
	ctx := context.Background()
	idx := siteIndex(t)
	as, shown := recordingProgress()
	s := FromConfig(config.Default())
	s.Backend, s.IndexFile = config.BackendLocal, idx
	_, be, err := as.Explorer(ctx, s, ui.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if be.Close != nil {
		defer be.Close()
	}
	if len(*shown) != 0 {
		t.Errorf("progress shown while the explorer draws: %q", *shown)
	}
}

// siteIndex builds the links test site's index and returns its file.
func siteIndex(t *testing.T) string {
	t.Helper()
	idx := filepath.Join(t.TempDir(), "site.idx")
	if _, err := BuildIndex(context.Background(), IndexJob{Docs: "../links/testdata/site/docs", Out: idx, Settings: config.Default()}); err != nil {
		t.Fatal(err)
	}
	return idx
}

// recordingProgress is an assembler whose progress lines are recorded.
func recordingProgress() (*Assembler, *[]string) {
	shown := &[]string{}
	return &Assembler{Progress: func(msg string) func() { *shown = append(*shown, msg); return func() {} }}, shown
}
