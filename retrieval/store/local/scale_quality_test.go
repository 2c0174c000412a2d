package local_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/store/local"
	"ragscope/retrieval/store/local/demo"
	"ragscope/retrieval/store/local/internal/gencorpus"
)

// scaleCorpus is the demo textbook plus pages generated pages (about ten
// chunks each, package gencorpus) drawn from the demo's own words, under
// docs/generated. The generator is deterministic, so a corpus of more pages
// holds every page of a smaller one unchanged.
func scaleCorpus(tb testing.TB, pages int) (fstest.MapFS, []string) {
	tb.Helper()
	fsys := fstest.MapFS{}
	err := fs.WalkDir(demo.Site(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(demo.Site(), p)
		fsys[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	words, err := gencorpus.Vocabulary(demo.Site(), demo.DocsDir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	err = gencorpus.Generate(words, pages, 1, demo.DocsDir+"/generated", func(name string, data []byte) error {
		fsys[name] = &fstest.MapFile{Data: data}
		names = append(names, name)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return fsys, names
}

// genQuestion is a question about one section of a generated page.
type genQuestion struct {
	q, docPath, section string
}

// generatedQuestions asks about one section of every fourth of the first
// pages pages: the section's heading word, the page's topic word (unique
// to the page, like a name a real chapter has) and the first three other
// long words of the section's prose. Rare words like the topic are what a
// hashed lexical part loses first: they collide with thousands of others.
func generatedQuestions(tb testing.TB, fsys fstest.MapFS, names []string, pages int) []genQuestion {
	tb.Helper()
	var out []genQuestion
	for p := 0; p < pages && p < len(names); p += 4 {
		lines := strings.Split(string(fsys[names[p]].Data), "\n")
		want := 1 + p%10 // the section asked about
		for i, ln := range lines {
			f := strings.Fields(strings.TrimPrefix(ln, "## "))
			if !strings.HasPrefix(ln, "## ") || len(f) != 3 || f[2] != strconv.Itoa(want) || i+2 >= len(lines) {
				continue
			}
			q := []string{f[0], f[1]}
			for _, w := range strings.Fields(lines[i+2]) {
				w = strings.ToLower(strings.Trim(w, "."))
				if len(w) >= 5 && w != strings.ToLower(f[1]) && !slices.Contains(q, w) {
					q = append(q, w)
				}
				if len(q) == 5 {
					break
				}
			}
			out = append(out, genQuestion{q: strings.Join(q, " "), docPath: names[p], section: strings.TrimPrefix(ln, "## ")})
		}
	}
	if len(out) < 10 {
		tb.Fatalf("only %d generated questions", len(out))
	}
	return out
}

// quality is what a run of questions gave: hit@5 and MRR (over the top 5).
type quality struct {
	chunks      int
	hitAt5, mrr float64
}

// vectorOnly hides the question's text from the index, which then scores
// with the dense vectors alone (lexical part hashed past 411 chunks): what
// retrieval was before the exact lexical cosines.
type vectorOnly struct{ retrieval.Store }

func (v vectorOnly) Search(ctx context.Context, req retrieval.SearchRequest) ([]retrieval.ScoredChunk, error) {
	req.Text = ""
	return v.Store.Search(ctx, req)
}

// askGenerated builds the corpus and asks qs, with exact lexical cosines or
// the vectors only; a hit is the section asked about, on the page asked
// about.
func askGenerated(tb testing.TB, fsys fstest.MapFS, qs []genQuestion) (exact, hashed quality) {
	tb.Helper()
	ctx := context.Background()
	ix, c, err := local.Build(ctx, fsys, local.BuildOptions{Chunk: local.ChunkOptions{DocsDir: demo.DocsDir}, BaseURL: demo.DocsBaseURL})
	if err != nil {
		tb.Fatal(err)
	}
	exact = ask(tb, &retrieval.Pipeline{Embedder: c.Embedder, Store: ix}, qs)
	hashed = ask(tb, &retrieval.Pipeline{Embedder: c.Embedder, Store: vectorOnly{ix}}, qs)
	exact.chunks, hashed.chunks = ix.Len(), ix.Len()
	return exact, hashed
}

func ask(tb testing.TB, p *retrieval.Pipeline, qs []genQuestion) quality {
	ctx := context.Background()
	var r quality
	for _, q := range qs {
		res, err := p.Retrieve(ctx, retrieval.Query{Question: q.q, TopK: 5})
		if err != nil {
			tb.Fatal(err)
		}
		for k, h := range res.Hits {
			if h.Chunk.DocPath == q.docPath && h.Chunk.Section == q.section {
				r.hitAt5++
				r.mrr += 1 / float64(k+1)
				break
			}
		}
	}
	r.hitAt5 /= float64(len(qs))
	r.mrr /= float64(len(qs))
	return r
}

// TestGeneratedQuestionsHoldAtScale asks the same questions, about
// sections of the first 200 generated pages, of an index of about 2,000
// chunks and of a larger one that holds the same pages among more (about
// 6,000 chunks; RAGSCOPE_SCALE_PAGES=4000 takes it to about 40,000). Both
// are far past the 411 documents the dense lexical vectors hold exactly;
// the exact lexical cosines keep the answers as good on the larger index.
func TestGeneratedQuestionsHoldAtScale(t *testing.T) {
	const basePages = 200
	pages := 600
	if s := os.Getenv("RAGSCOPE_SCALE_PAGES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= basePages {
			t.Fatalf("RAGSCOPE_SCALE_PAGES=%q: want a number of pages above %d", s, basePages)
		}
		pages = n
	}
	small, names := scaleCorpus(t, basePages)
	qs := generatedQuestions(t, small, names, basePages)
	base, baseHashed := askGenerated(t, small, qs)
	big, _ := scaleCorpus(t, pages)
	large, largeHashed := askGenerated(t, big, qs)
	for _, r := range [][2]quality{{base, baseHashed}, {large, largeHashed}} {
		t.Logf("%6d chunks, %d questions: exact hit@5 %.3f MRR %.3f | vectors only (hashed) hit@5 %.3f MRR %.3f",
			r[0].chunks, len(qs), r[0].hitAt5, r[0].mrr, r[1].hitAt5, r[1].mrr)
	}
	if large.hitAt5 < base.hitAt5-1e-9 || large.mrr < base.mrr-0.02 {
		t.Errorf("answers got worse with size: hit@5 %.3f -> %.3f, MRR %.3f -> %.3f", base.hitAt5, large.hitAt5, base.mrr, large.mrr)
	}
	if large.mrr < largeHashed.mrr {
		t.Errorf("exact lexical cosines (MRR %.3f) do worse than hashed vectors (%.3f)", large.mrr, largeHashed.mrr)
	}
}

// BenchmarkQualityAtScale reports, at about 2,000 and 40,000 chunks, the
// generated questions' hit@5 and MRR (the same questions at both sizes)
// and the demo golden set's hit@k and MRR among the generated pages.
func BenchmarkQualityAtScale(b *testing.B) {
	set, err := eval.Parse(demo.GoldenSet(), demo.GoldenSetName)
	if err != nil {
		b.Fatal(err)
	}
	small, names := scaleCorpus(b, 200)
	qs := generatedQuestions(b, small, names, 200)
	for _, pages := range []int{200, 4000} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			fsys, _ := scaleCorpus(b, pages)
			var gen, hashed quality
			var golden eval.Summary
			for b.Loop() {
				gen, hashed = askGenerated(b, fsys, qs)
				ix, c, err := local.Build(context.Background(), fsys, local.BuildOptions{Chunk: local.ChunkOptions{DocsDir: demo.DocsDir}, BaseURL: demo.DocsBaseURL})
				if err != nil {
					b.Fatal(err)
				}
				p := &retrieval.Pipeline{Embedder: c.Embedder, Store: ix, URLs: c.URLBuilder(docusaurus.SlugGitHub)}
				rep, err := eval.Run(context.Background(), p, set, eval.Options{LatencySample: -1})
				if err != nil {
					b.Fatal(err)
				}
				golden = rep.Summary
			}
			b.ReportMetric(float64(gen.chunks), "chunks")
			b.ReportMetric(gen.hitAt5, "gen-hit@5")
			b.ReportMetric(gen.mrr, "gen-MRR")
			b.ReportMetric(hashed.hitAt5, "gen-hashed-hit@5")
			b.ReportMetric(hashed.mrr, "gen-hashed-MRR")
			b.ReportMetric(golden.HitAtK, "demo-hit@k")
			b.ReportMetric(golden.MRR, "demo-MRR")
		})
	}
}

// BenchmarkBuildScale measures what "ragscope index" does at about 10,000
// and 44,000 chunks (the generated corpora of 1,000 and 4,000 pages):
// chunking, BM25 postings, fitting and embedding, and saving the file.
// Budgets, whole process on the 2-core machine: 10k within 3 s and 300 MB,
// 44k within 12 s and 800 MB (measure those with /usr/bin/time on
// "ragscope index").
func BenchmarkBuildScale(b *testing.B) {
	for _, pages := range []int{1000, 4000} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			fsys, _ := scaleCorpus(b, pages)
			out := b.TempDir() + "/scale.idx"
			ctx := context.Background()
			chunks := 0
			for b.Loop() {
				ix, c, err := local.Build(ctx, fsys, local.BuildOptions{Chunk: local.ChunkOptions{DocsDir: demo.DocsDir}, BaseURL: demo.DocsBaseURL})
				if err != nil {
					b.Fatal(err)
				}
				if err := local.SaveIndex(ctx, out, ix, c); err != nil {
					b.Fatal(err)
				}
				chunks = ix.Len()
			}
			b.ReportMetric(float64(chunks), "chunks")
		})
	}
}
