package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func embedAll(t *testing.T, m *Model, texts []string) [][]float32 {
	t.Helper()
	vecs, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("Embed returned %d vectors for %d texts", len(vecs), len(texts))
	}
	return vecs
}

func TestNameAndDim(t *testing.T) {
	m := New(nil)
	if m.Name() != "ragscope-local-glove100-sif+chargram-v2" {
		t.Errorf("Name() = %q", m.Name())
	}
	if m.Dim() != 512 {
		t.Errorf("Dim() = %d, want 512", m.Dim())
	}
	docs, _ := devCorpus()
	for _, m := range []*Model{New(nil), New(docs[:3]), New(docs), New(syntheticDocs(450, 60))} {
		for i, v := range embedAll(t, m, append(docs[:2], "", "What is URDF?")) {
			if len(v) != m.Dim() {
				t.Errorf("vector %d has length %d, want Dim() = %d", i, len(v), m.Dim())
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	docs, queries := devCorpus()
	texts := append([]string{}, docs...)
	for _, q := range queries {
		texts = append(texts, q.q)
	}
	a := embedAll(t, New(docs), texts)
	b := embedAll(t, New(append([]string(nil), docs...)), texts)
	again := embedAll(t, New(docs), texts)
	for i := range a {
		for j := range a[i] {
			if math.Float32bits(a[i][j]) != math.Float32bits(b[i][j]) || math.Float32bits(a[i][j]) != math.Float32bits(again[i][j]) {
				t.Fatalf("text %d component %d differs between equal models: %v, %v, %v", i, j, a[i][j], b[i][j], again[i][j])
			}
		}
	}
	// A text embedded alone equals the same text embedded in a batch.
	m := New(docs)
	one := embedAll(t, m, texts[5:6])[0]
	if !reflect.DeepEqual(one, a[5]) {
		t.Error("embedding a text alone differs from embedding it in a batch")
	}
}

func TestNormalised(t *testing.T) {
	docs, queries := devCorpus()
	large := syntheticDocs(450, 60) // more documents than lexical dimensions
	for name, m := range map[string]*Model{
		"no corpus":    New(nil),
		"dev corpus":   New(docs),
		"large corpus": New(large),
	} {
		texts := append([]string{"ROS 2", "rclpy", "xyzzy plugh", "Gazebo"}, docs[:5]...)
		texts = append(texts, large[:5]...)
		for _, q := range queries[:10] {
			texts = append(texts, q.q)
		}
		for i, v := range embedAll(t, m, texts) {
			if n := norm(v); math.Abs(n-1) > 1e-4 {
				t.Errorf("%s: text %d %.30q has norm %v, want 1", name, i, texts[i], n)
			}
		}
	}
}

func TestCorpusDocumentsAreTheirOwnNearestNeighbour(t *testing.T) {
	for _, docs := range [][]string{syntheticDocs(60, 120), syntheticDocs(450, 60)} {
		m := New(docs)
		vecs := embedAll(t, m, docs)
		wrong := 0
		for i, v := range vecs {
			best, bestScore := -1, float32(-2)
			for j, w := range vecs {
				if s := dot(v, w); s > bestScore {
					best, bestScore = j, s
				}
			}
			if best != i {
				wrong++
			}
		}
		if wrong > 0 {
			t.Errorf("%d of %d documents are not their own nearest neighbour", wrong, len(docs))
		}
	}
}

// TestProjectionIsExact checks the linear algebra: with no more documents
// than coordinates, the lexical parts' dot product equals the exact cosine
// of the sparse TF-IDF vectors.
func TestProjectionIsExact(t *testing.T) {
	docs, queries := devCorpus()
	m := New(docs)
	if m.proj == nil || m.proj.rank != len(docs) {
		t.Fatalf("want an exact projection of all %d documents, got %+v", len(docs), m.proj)
	}
	sparse := func(text string) map[uint64]float64 {
		out := map[uint64]float64{}
		var ss float64
		for _, f := range m.features(tokenize(text)) {
			out[f.key] = float64(f.w)
			ss += float64(f.w) * float64(f.w)
		}
		for k := range out {
			out[k] /= math.Sqrt(ss)
		}
		return out
	}
	lexical := func(text string) []float64 {
		v := make([]float32, m.cfg.lexDim)
		m.lexicalVector(tokenize(text), v)
		n := norm(v)
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x) / n
		}
		return out
	}
	for _, q := range queries[:12] {
		qs, ql := sparse(q.q), lexical(q.q)
		for _, d := range docs {
			ds, dl := sparse(d), lexical(d)
			var want, got float64
			for k, x := range qs {
				want += x * ds[k]
			}
			for i := range ql {
				got += ql[i] * dl[i]
			}
			if math.Abs(got-want) > 1e-4 {
				t.Fatalf("%q vs %.30q: projected cosine %.6f, exact %.6f", q.q, d, got, want)
			}
		}
	}
}

// TestLexicalCosinesExactAtScale checks that past the projection's limit
// (411 documents) the lexical cosines a search uses are still exact: equal
// to the cosine of the sparse TF-IDF vectors computed the slow way, for
// every document, and unchanged by a save and restore.
func TestLexicalCosinesExactAtScale(t *testing.T) {
	base, queries := devCorpus()
	var docs []string
	for i := 0; len(docs) < 900; i++ {
		docs = append(docs, base[i%len(base)]+" "+base[(i*7+3)%len(base)]+fmt.Sprintf(" variant%d", i))
	}
	m := New(docs)
	if m.proj != nil {
		t.Fatalf("a corpus of %d documents should not be projected", len(docs))
	}
	state, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	restored, err := Restore(state)
	if err != nil {
		t.Fatal(err)
	}
	unit := func(text string) map[uint64]float64 {
		out := map[uint64]float64{}
		var ss float64
		for _, f := range m.features(tokenize(text)) {
			out[f.key] = float64(f.w)
			ss += float64(f.w) * float64(f.w)
		}
		for k := range out {
			out[k] /= math.Sqrt(ss)
		}
		return out
	}
	dv := make([]map[uint64]float64, len(docs))
	for i, d := range docs {
		dv[i] = unit(d)
	}
	for _, q := range queries[:8] {
		qs := unit(q.q)
		for name, model := range map[string]*Model{"fitted": m, "restored": restored} {
			got, err := model.LexicalCosines(context.Background(), q.q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(docs) {
				t.Fatalf("%s: %d cosines for %d documents", name, len(got), len(docs))
			}
			for i := range docs {
				var want float64
				for k, x := range qs {
					want += x * dv[i][k]
				}
				if math.Abs(float64(got[i])-want) > 1e-4 {
					t.Fatalf("%s: %q vs document %d: cosine %.6f, exact %.6f", name, q.q, i, got[i], want)
				}
			}
		}
	}
}

func TestCancelledContext(t *testing.T) {
	m := New([]string{"one document about robots"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	vecs, err := m.Embed(ctx, []string{"a", "b"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Embed with a cancelled context: err = %v, want context.Canceled", err)
	}
	if vecs != nil {
		t.Errorf("Embed with a cancelled context returned vectors")
	}
}

// cancelAfter is a context whose Err turns to Canceled after n calls,
// standing for a user who gives up in the middle of a batch.
type cancelAfter struct {
	context.Context
	mu sync.Mutex
	n  int
}

func (c *cancelAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

func TestCancelledBetweenTexts(t *testing.T) {
	m := New(nil)
	ctx := &cancelAfter{Context: context.Background(), n: 2}
	_, err := m.Embed(ctx, []string{"first", "second", "third", "fourth"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !strings.Contains(err.Error(), "text 3 of 4") {
		t.Errorf("err = %q, want it to say where the batch stopped", err)
	}
}

func TestOddInputs(t *testing.T) {
	docs, _ := devCorpus()
	m := New(docs)
	big := strings.Repeat("The humanoid robot walks with a ROS 2 controller; ", 2100) // > 100 KB
	longWord := strings.Repeat("x", 5000)
	inputs := map[string]string{
		"empty":           "",
		"spaces":          " \t\n  ",
		"punctuation":     "?!... --- ### *** ``` ()[]{}",
		"100 KB":          big,
		"invalid UTF-8":   "robot \xff\xfe\xfd walks \xc3\x28 and \xe2\x82",
		"emoji":           "🤖🦾 robot 👋🏽 arm 🇫🇷",
		"only emoji":      "🤖🦾👋🏽",
		"one long word":   longWord,
		"mixed scripts":   "Робот ロボット 机器人 روبوت robot",
		"digits":          "2 3 2024 0.5 1e-9",
		"control":         "\x00\x1b[31mred\x1b[0m\x07",
		"combining marks": "e\u0301e\u0301 cafe\u0301",
		"turkish":         "İSTANBUL ıi",
	}
	for name, text := range inputs {
		t.Run(name, func(t *testing.T) {
			vecs := embedAll(t, m, []string{text})
			v := vecs[0]
			if len(v) != m.Dim() {
				t.Fatalf("length %d, want %d", len(v), m.Dim())
			}
			for i, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("component %d is %v", i, x)
				}
			}
			if n := norm(v); n != 0 && math.Abs(n-1) > 1e-4 {
				t.Errorf("norm %v, want 0 or 1", n)
			}
		})
	}
	for _, text := range []string{"", "   ", "?!...", "🤖🦾👋🏽"} {
		if n := norm(embedAll(t, m, []string{text})[0]); n != 0 {
			t.Errorf("%q: norm %v, want a zero vector", text, n)
		}
	}
	// New must cope with the same inputs as documents.
	var odd []string
	for _, text := range inputs {
		odd = append(odd, text)
	}
	embedAll(t, New(odd), []string{"robot", ""})
}

func TestConcurrentEmbed(t *testing.T) {
	docs, queries := devCorpus()
	m := New(docs)
	var texts []string
	for _, q := range queries {
		texts = append(texts, q.q)
	}
	want := embedAll(t, m, texts)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(texts); i += 3 {
				got, err := m.Embed(context.Background(), texts[i:i+1])
				if err != nil {
					errs <- err
					return
				}
				if !reflect.DeepEqual(got[0], want[i]) {
					errs <- fmt.Errorf("text %d differs when embedded concurrently", i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string // main, or main|alt,alt
	}{
		{"What is ROS 2?", []string{"ros2|ros"}},
		{"ros2 and nav2", []string{"ros2|ros", "nav2|nav"}},
		{"Use rclpy with URDF files", []string{"rclpy", "urdf", "files"}},
		{"RT-2 and Isaac Sim 4", []string{"rt2|rt", "isaac", "sim4|sim"}},
		{"PointCloud2 messages", []string{"pointcloud2|pointcloud,point,cloud", "messages"}},
		{"create_publisher(String, 'chatter', 10)", []string{"create", "publisher", "string", "chatter", "10"}},
		{"the robot's arm", []string{"robot", "arm"}},
		{"Step 3: build", []string{"step3|step", "build"}},
		{"x y z 7", nil},
		{"the answer is 2", []string{"answer"}},
		{"", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, tok := range tokenize(tt.in) {
			s := tok.main
			if len(tok.alts) > 0 {
				s += "|" + strings.Join(tok.alts, ",")
			}
			got = append(got, s)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSemanticPartRelatesSynonyms(t *testing.T) {
	m := New(nil)
	sem := func(text string) []float32 {
		v := embedAll(t, m, []string{text})[0][:gloveDim]
		out := append([]float32(nil), v...)
		if n := norm(out); n > 0 {
			scale(out, float32(1/n))
		}
		return out
	}
	near := dot(sem("pictures of cars"), sem("images of vehicles"))
	far := dot(sem("pictures of cars"), sem("taxes and elections"))
	if near <= far+0.2 {
		t.Errorf("semantic cosine of paraphrases %.3f, of unrelated texts %.3f: want a clear gap", near, far)
	}
}
