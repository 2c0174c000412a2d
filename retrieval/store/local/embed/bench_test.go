package embed

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// syntheticDocs returns n documents of about words words each, drawn with a
// fixed seed from the dev corpus's word frequencies, so that their
// vocabulary and n-gram statistics resemble the textbook's.
func syntheticDocs(n, words int) []string {
	docs, _ := devCorpus()
	var pool []string
	for _, d := range docs {
		pool = append(pool, strings.Fields(d)...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		// Start from a random place and copy a run, then jump: runs keep
		// some real word order for bigrams.
		for w := 0; w < words; {
			start := rng.IntN(len(pool))
			run := 5 + rng.IntN(20)
			for j := 0; j < run && w < words; j++ {
				b.WriteString(pool[(start+j)%len(pool)])
				b.WriteByte(' ')
				w++
			}
		}
		out[i] = b.String()
	}
	return out
}

func BenchmarkLoadData(b *testing.B) {
	for b.Loop() {
		if _, err := decodeGlove(gloveData); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	docs := syntheticDocs(300, 200)
	if _, err := loadGlove(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		New(docs)
	}
}

func BenchmarkEmbedQuery(b *testing.B) {
	m := New(syntheticDocs(300, 200))
	ctx := context.Background()
	q := []string{"How does a humanoid robot keep its balance while walking on uneven ground?"}
	for b.Loop() {
		if _, err := m.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmbedDocument(b *testing.B) {
	docs := syntheticDocs(300, 200)
	m := New(docs)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := m.Embed(ctx, docs[i%len(docs):i%len(docs)+1]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDot10k is the exact search a local index runs: one query against
// 10,000 unit vectors of the model's dimension.
func BenchmarkDot10k(b *testing.B) {
	const n = 10000
	dim := New(nil).Dim()
	rng := rand.New(rand.NewPCG(3, 4))
	unit := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		scale(v, float32(1/norm(v)))
		return v
	}
	flat := make([]float32, 0, n*dim)
	for range n {
		flat = append(flat, unit()...)
	}
	q := unit()
	scores := make([]float32, n)
	for b.Loop() {
		for i := range scores {
			scores[i] = Dot(q, flat[i*dim:(i+1)*dim])
		}
	}
}

// BenchmarkIndex2000 fits a model on 2,000 chunks and embeds them all, the
// start-up cost of a local index larger than the exact projection's limit.
func BenchmarkIndex2000(b *testing.B) {
	docs := syntheticDocs(2000, 200)
	ctx := context.Background()
	for b.Loop() {
		m := New(docs)
		if _, err := m.Embed(ctx, docs); err != nil {
			b.Fatal(err)
		}
	}
}
