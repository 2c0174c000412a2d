package local

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
)

func TestSaveIndexCancelledKeepsOldFile(t *testing.T) {
	ix := fixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.idx")
	old := []byte("previous index")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SaveIndex(ctx, path, ix, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
		t.Errorf("old file replaced: %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	if err := CheckWritable(filepath.Join(dir, "ok.idx")); err != nil {
		t.Errorf("writable folder: %v", err)
	}
	for name, p := range map[string]string{
		"missing folder": filepath.Join(dir, "nope", "x.idx"),
		"a folder":       dir,
		"empty":          "",
	} {
		if err := CheckWritable(p); !errors.Is(err, retrieval.ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	if f, err := os.CreateTemp(ro, "probe"); err == nil {
		// Running as root: permissions do not stop writes.
		f.Close()
		os.Remove(f.Name())
	} else if err := CheckWritable(filepath.Join(ro, "x.idx")); !errors.Is(err, retrieval.ErrConfig) {
		t.Errorf("read-only folder: err = %v, want ErrConfig", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("probe files left: %v", entries)
	}
}

func TestLoadIndexRestoresTheEmbedder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix, c, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "demo.idx")
	if err := SaveIndex(ctx, path, ix, c); err != nil {
		t.Fatal(err)
	}
	ix2, c2, err := LoadIndex(ctx, path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q := []string{"how does a humanoid keep its balance?"}
	want, _ := c.Embedder.Embed(ctx, q)
	got, err := c2.Embedder.Embed(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0], want[0]) || ix2.Len() != ix.Len() {
		t.Errorf("loaded index embeds differently from the built one")
	}

	// The saved state is what the loaded embedder comes from: damaging it
	// is reported, not silently refitted.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeIndexFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	f.Embedder = f.Embedder[:len(f.Embedder)/2]
	damaged := filepath.Join(dir, "damaged.idx")
	writeIndexFile(t, damaged, f)
	if _, _, err := LoadIndex(ctx, damaged, LoadOptions{}); !errors.Is(err, ErrIncompatibleIndex) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("damaged embedder state: err = %v", err)
	}
}

// BenchmarkLoadDemoIndex measures loading the demo saved as an index file:
// decoding, restoring the embedder, the spot check.
func BenchmarkLoadDemoIndex(b *testing.B) {
	ctx := context.Background()
	ix, c, err := OpenDemo(ctx)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "demo.idx")
	if err := SaveIndex(ctx, path, ix, c); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := LoadIndex(ctx, path, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadIndexFile loads the index file named by RAGSCOPE_BENCH_INDEX
// (e.g. one built from testdata/gencorpus), to profile loading at scale.
func BenchmarkLoadIndexFile(b *testing.B) {
	path := os.Getenv("RAGSCOPE_BENCH_INDEX")
	if path == "" {
		b.Skip("set RAGSCOPE_BENCH_INDEX to an index file")
	}
	for b.Loop() {
		if _, _, err := LoadIndex(context.Background(), path, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFitEmbedderStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	slow := func(docs []string) retrieval.Embedder {
		<-release // a fit that would never end by itself
		return stubEmbedder{name: "slow", dim: 4}
	}
	errc := make(chan error, 1)
	go func() {
		_, err := fitEmbedder(ctx, slow, []string{"a"})
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// BenchmarkBuildDir builds the docs folder named by RAGSCOPE_BENCH_DOCS
// (e.g. one written by testdata/gencorpus), to profile builds at scale.
func BenchmarkBuildDir(b *testing.B) {
	dir := os.Getenv("RAGSCOPE_BENCH_DOCS")
	if dir == "" {
		b.Skip("set RAGSCOPE_BENCH_DOCS to a docs folder")
	}
	for b.Loop() {
		if _, _, err := BuildDir(context.Background(), dir, BuildOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// vanishingFS lists a folder whose reading then fails: the docs folder
// changing under a running build.
type vanishingFS struct{ fstest.MapFS }

func (v vanishingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == "docs/part" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return v.MapFS.ReadDir(name)
}

func TestBuildDocsFolderVanishing(t *testing.T) {
	fsys := vanishingFS{fstest.MapFS{
		"docs/intro.md":      {Data: []byte("# Intro\n\nServo motors hold a joint's angle.\n")},
		"docs/part/later.md": {Data: []byte("# Later\n\nGone before it is read.\n")},
	}}
	_, _, err := Build(context.Background(), fsys, BuildOptions{NewEmbedder: newStub})
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "disappeared while it was being indexed") {
		t.Errorf("err = %v", err)
	}
}

// TestDamagedPostingsFailTheQuestionThatReadsThem: the embedder's postings
// are checked as questions read them, not on load. A byte damaged there
// leaves the load working and fails the first search that reads it with
// ErrCorruptIndex and a "rebuild" message, never a panic or a wrong score;
// damage elsewhere in the embedder's state fails the load.
func TestDamagedPostingsFailTheQuestionThatReadsThem(t *testing.T) {
	ctx := context.Background()
	ix, c, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "demo.idx")
	if err := SaveIndex(ctx, good, ix, c); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := stateRange(raw[:len(raw)-4])
	if hi-lo < 1<<16 {
		t.Fatalf("embedder state at %d..%d: too small to damage", lo, hi)
	}
	questions := []string{"What is ROS 2?", "How do robots walk on two legs?", "sensor fusion with a kalman filter", "URDF joints and links", "Isaac Sim synthetic data"}
	var loadFailed, searchFailed int
	for at := lo + 64; at < hi-8; at += (hi - lo) / 24 {
		bad := bytes.Clone(raw)
		bad[at] ^= 0x10
		p := filepath.Join(dir, "bad.idx")
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		bix, bc, err := LoadIndex(ctx, p, LoadOptions{})
		if err != nil {
			if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "rebuild") {
				t.Errorf("byte %d: load: %v", at, err)
			}
			loadFailed++
			continue
		}
		// A hybrid search reads the embedder's postings (BM25 alone, the
		// default, reads only its own).
		if bix, err = bix.WithMode(ModeHybrid); err != nil {
			t.Fatal(err)
		}
		for _, q := range questions {
			vec, err := bc.Embedder.Embed(ctx, []string{q})
			if err != nil {
				t.Fatal(err)
			}
			_, err = bix.Search(ctx, retrieval.SearchRequest{Vector: vec[0], Text: q, Limit: 5})
			if err == nil {
				continue
			}
			if !errors.Is(err, ErrCorruptIndex) || !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "rebuild") {
				t.Errorf("byte %d, %q: %v", at, q, err)
			}
			searchFailed++
			break
		}
	}
	if loadFailed == 0 || searchFailed == 0 {
		t.Errorf("of the damaged files, %d failed to load and %d failed a search: want both kinds", loadFailed, searchFailed)
	}
}
