package local

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

func smallSite() fstest.MapFS {
	return fstest.MapFS{
		"docusaurus.config.js": {Data: []byte(`module.exports = {
  url: 'https://owner.github.io',
  baseUrl: '/book/',
  presets: [['classic', { docs: { routeBasePath: 'learn', editUrl: 'https://github.com/o/r' }, blog: { routeBasePath: 'news' } }]],
};`)},
		"docs/intro.md":            {Data: []byte("---\ntitle: Welcome\n---\nThis book teaches robot middleware.\n")},
		"docs/01-ros/01-topics.md": {Data: []byte("---\ntitle: Topics\ntags: [ros2]\n---\n## Publishers {#pub}\n\nA publisher sends messages on a topic.\n\n## Subscribers\n\nA subscriber receives messages from a topic.\n")},
		"docs/01-ros/02-urdf.md":   {Data: []byte("# URDF\n\n## Links and joints\n\nURDF describes links and joints of a humanoid robot.\n")},
	}
}

func TestBuildAndQuery(t *testing.T) {
	ctx := context.Background()
	ix, c, err := Build(ctx, smallSite(), BuildOptions{NewEmbedder: newStub})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 4 || ix.Dim() != 64 || ix.Info().Model != "stub-bow-v1" || ix.Info().Backend != BackendLocal || ix.Info().Name != "docs" {
		t.Errorf("index: len %d dim %d info %+v", ix.Len(), ix.Dim(), ix.Info())
	}
	if c.DocsBase != "https://owner.github.io/book/learn/" || c.SiteURL != "https://owner.github.io" || c.BaseSource != BaseFromConfig || c.ConfigFile != "docusaurus.config.js" {
		t.Errorf("corpus base: %+v", c)
	}
	p := retrieval.Pipeline{Embedder: c.Embedder, Store: ix, URLs: c.URLBuilder(docusaurus.SlugGitHub)}
	res, err := p.Retrieve(ctx, retrieval.Query{Question: "links and joints of a humanoid", TopK: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Citation.URL != "https://owner.github.io/book/learn/ros/urdf#links-and-joints" {
		t.Errorf("hit: %+v", res.Hits)
	}
	res, _ = p.Retrieve(ctx, retrieval.Query{Question: "publisher sends messages", TopK: 1})
	if res.Hits[0].Citation.URL != "https://owner.github.io/book/learn/ros/topics#pub" {
		t.Errorf("explicit id url = %q", res.Hits[0].Citation.URL)
	}
}

func TestBuildBaseURLFlagWins(t *testing.T) {
	_, c, err := Build(context.Background(), smallSite(), BuildOptions{NewEmbedder: newStub, BaseURL: "https://me.dev/x/docs"})
	if err != nil {
		t.Fatal(err)
	}
	if c.DocsBase != "https://me.dev/x/docs/" || c.SiteURL != "https://me.dev" || c.BaseSource != BaseFromFlag {
		t.Errorf("corpus: %+v", c)
	}
	_, _, err = Build(context.Background(), smallSite(), BuildOptions{NewEmbedder: newStub, BaseURL: "not a url"})
	if !errors.Is(err, retrieval.ErrConfig) {
		t.Errorf("bad base url: %v", err)
	}
	site := smallSite()
	delete(site, "docusaurus.config.js")
	_, c, err = Build(context.Background(), site, BuildOptions{NewEmbedder: newStub})
	if err != nil || c.DocsBase != "" || c.BaseSource != BaseFromDefault {
		t.Errorf("no config: %+v %v", c, err)
	}
}

func TestBuildErrors(t *testing.T) {
	_, _, err := Build(context.Background(), fstest.MapFS{"docs/a.txt": {}}, BuildOptions{NewEmbedder: newStub})
	if !errors.Is(err, ErrNoMarkdown) {
		t.Errorf("no markdown: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Build(ctx, smallSite(), BuildOptions{NewEmbedder: newStub}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestBuildDir(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "website", "docs")
	if err := os.MkdirAll(filepath.Join(docs, "m"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "website", "docusaurus.config.ts"), []byte("export default { url: \"https://a.b\", baseUrl: \"/\" }"), 0o644)
	os.WriteFile(filepath.Join(docs, "m", "page.md"), []byte("## Hello\n\nWorld.\n"), 0o644)
	ix, c, err := BuildDir(context.Background(), docs, BuildOptions{NewEmbedder: newStub})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 1 || ix.Chunks()[0].DocPath != "docs/m/page.md" || c.DocsBase != "https://a.b/docs/" {
		t.Errorf("chunks %v base %q", ix.Chunks(), c.DocsBase)
	}
	empty := t.TempDir()
	if _, _, err := BuildDir(context.Background(), empty, BuildOptions{NewEmbedder: newStub}); !errors.Is(err, ErrNoMarkdown) || !strings.Contains(err.Error(), "no markdown files found under") {
		t.Errorf("empty folder: %v", err)
	}
	if _, _, err := BuildDir(context.Background(), filepath.Join(dir, "missing"), BuildOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v", err)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	ctx := context.Background()
	ix, c, err := Build(ctx, smallSite(), BuildOptions{NewEmbedder: newStub})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "book.idx")
	if err := SaveIndex(context.Background(), path, ix, c); err != nil {
		t.Fatal(err)
	}
	got, gc, err := LoadIndex(ctx, path, LoadOptions{NewEmbedder: newStub})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Chunks(), ix.Chunks()) || !reflect.DeepEqual(got.vecs, ix.vecs) || got.Info() != ix.Info() {
		t.Error("index changed in the round trip")
	}
	if gc.DocsBase != c.DocsBase || gc.SiteURL != c.SiteURL || gc.BaseSource != BaseFromFile || gc.Embedder.Name() != "stub-bow-v1" {
		t.Errorf("corpus: %+v", gc)
	}
	q, _ := gc.Embedder.Embed(ctx, []string{"subscriber receives"})
	a, _ := ix.Search(ctx, retrieval.SearchRequest{Vector: q[0], Limit: 4})
	b, _ := got.Search(ctx, retrieval.SearchRequest{Vector: q[0], Limit: 4})
	if !reflect.DeepEqual(a, b) {
		t.Error("loaded index answers differently")
	}
	_, gc, err = LoadIndex(ctx, path, LoadOptions{NewEmbedder: newStub, BaseURL: "/other/docs/"})
	if err != nil || gc.DocsBase != "/other/docs/" {
		t.Errorf("base override: %v %+v", err, gc)
	}
}

func writeIndexFile(t *testing.T, path string, f *indexFile) {
	t.Helper()
	var buf bytes.Buffer
	if err := f.encode(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeGzipJSON(t *testing.T, path string, v any) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	json.NewEncoder(zw).Encode(v)
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadIndexErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix, c, err := Build(ctx, smallSite(), BuildOptions{NewEmbedder: newStub})
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.idx")
	if err := SaveIndex(context.Background(), good, ix, c); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(good)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}

	_, _, err = LoadIndex(ctx, filepath.Join(dir, "missing.idx"), LoadOptions{NewEmbedder: newStub})
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, retrieval.ErrNotFound) || !strings.Contains(err.Error(), "ragscope index") {
		t.Errorf("missing: %v", err)
	}
	corrupt := map[string]string{
		"text":      write("text.idx", []byte("hello, not an index")),
		"truncated": write("trunc.idx", raw[:len(raw)/2]),
		"empty":     write("empty.idx", nil),
	}
	flipped := bytes.Clone(raw)
	flipped[len(flipped)/2] ^= 0x40
	corrupt["one bit flipped"] = write("flipped.idx", flipped)
	other := filepath.Join(dir, "other.idx")
	writeIndexFile(t, other, &indexFile{Format: "something-else", Version: indexVersion})
	corrupt["other format"] = other
	short := filepath.Join(dir, "short.idx")
	writeIndexFile(t, short, &indexFile{Format: indexFormat, Version: indexVersion, Dim: 64, Chunks: []retrieval.Chunk{{ID: "a"}}, Vectors: []float32{1, 2, 3}})
	corrupt["short vectors"] = short
	for name, p := range corrupt {
		_, _, err := LoadIndex(ctx, p, LoadOptions{NewEmbedder: newStub})
		if !errors.Is(err, ErrCorruptIndex) || !errors.Is(err, retrieval.ErrConfig) {
			t.Errorf("%s: err = %v, want ErrCorruptIndex", name, err)
		}
		// The checksum, checked beside the decoding, names the damage.
		if (name == "truncated" || name == "one bit flipped") && !strings.Contains(fmt.Sprint(err), "checksum mismatch") {
			t.Errorf("%s: err = %v, want a checksum mismatch", name, err)
		}
	}

	future := filepath.Join(dir, "future.idx")
	writeIndexFile(t, future, &indexFile{Format: indexFormat, Version: indexVersion + 1})
	if _, _, err := LoadIndex(ctx, future, LoadOptions{NewEmbedder: newStub}); !errors.Is(err, ErrIncompatibleIndex) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("future version: %v", err)
	}
	// Version 1 files were gzip'd JSON.
	v1 := filepath.Join(dir, "v1.idx")
	writeGzipJSON(t, v1, map[string]any{"format": indexFormat, "version": 1})
	if _, _, err := LoadIndex(ctx, v1, LoadOptions{NewEmbedder: newStub}); !errors.Is(err, ErrIncompatibleIndex) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("version 1: %v", err)
	}
	otherModel := func([]string) retrieval.Embedder { return stubEmbedder{name: "other-model", dim: 64} }
	if _, _, err := LoadIndex(ctx, good, LoadOptions{NewEmbedder: otherModel}); !errors.Is(err, ErrIncompatibleIndex) || !strings.Contains(err.Error(), "other-model") {
		t.Errorf("other model: %v", err)
	}
	sameNameOtherDim := func([]string) retrieval.Embedder { return stubEmbedder{name: "stub-bow-v1", dim: 32} }
	if _, _, err := LoadIndex(ctx, good, LoadOptions{NewEmbedder: sameNameOtherDim}); !errors.Is(err, ErrIncompatibleIndex) {
		t.Errorf("same name, other vectors: %v", err)
	}
}

func TestSaveIndexLeavesNoTempFiles(t *testing.T) {
	ix := fixture(t)
	dir := t.TempDir()
	if err := SaveIndex(context.Background(), filepath.Join(dir, "x.idx"), ix, nil); err != nil {
		t.Fatal(err)
	}
	if err := SaveIndex(context.Background(), filepath.Join(dir, "no-such-dir", "x.idx"), ix, nil); err == nil {
		t.Error("save into a missing folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// TestBuildReportsProgress checks the phases reported with a given
// embedder (fitted, then asked to embed) and with the default one (fitted
// and embedded in one go by embed.FitEmbed).
func TestBuildReportsProgress(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range 700 {
		fsys[fmt.Sprintf("docs/p%03d.md", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("# Page %d\n\nServo motor number %d holds a joint.\n", i, i))}
	}
	for _, tc := range []struct {
		name   string
		newEmb EmbedderFunc
	}{{"given", newStub}, {"default", nil}} {
		t.Run(tc.name, func(t *testing.T) { testBuildReportsProgress(t, fsys, tc.newEmb) })
	}
}

func testBuildReportsProgress(t *testing.T, fsys fstest.MapFS, newEmb EmbedderFunc) {
	var phases []string
	last := map[string][2]int{}
	ix, _, err := Build(context.Background(), fsys, BuildOptions{NewEmbedder: newEmb, Progress: func(phase string, done, total int) {
		if p, ok := last[phase]; ok && done < p[0] {
			t.Errorf("%s went back from %d to %d", phase, p[0], done)
		}
		if _, ok := last[phase]; !ok {
			phases = append(phases, phase)
		}
		last[phase] = [2]int{done, total}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(phases) != 2 || phases[0] != PhaseFit || phases[1] != PhaseEmbed {
		t.Errorf("phases %v", phases)
	}
	if got := last[PhaseEmbed]; got != [2]int{ix.Len(), ix.Len()} || got[0] != 700 {
		t.Errorf("embedding ended at %v, want %d/%d", got, ix.Len(), ix.Len())
	}
	if got := last[PhaseFit]; got != [2]int{1, 1} {
		t.Errorf("fitting ended at %v", got)
	}
}
