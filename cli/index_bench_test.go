package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"ragscope/retrieval/provider/cohere/coheretest"
)

// BenchmarkIndexCohere is the budget of index --embedder cohere of a
// 2,000-chunk book with every call taking 300 ms, against the ideal of
// ceil(2000/96) = 21 calls spread over the 4 in flight (6 rounds, 1.8 s);
// then a re-index after editing one page (100 chunks). It reports the
// time over the ideal (x-ideal, budget 1.3) and the texts and calls of
// the re-index.
func BenchmarkIndexCohere(b *testing.B) {
	co := coheretest.NewServer(testCohereKey)
	defer co.Close()
	co.SetLatency(time.Duration(envInt("BENCH_LATENCY_MS", 300)) * time.Millisecond)
	root := b.TempDir()
	docs := providerDocs(b, root, 20, 100)
	idx := filepath.Join(root, "book.idx")
	const ideal = 6 * 300 * time.Millisecond
	for b.Loop() {
		env := cohereIndexEnv(b, co.URL) // a cold cache every time
		start := time.Now()
		if code, out, errs := runB(b, env, "index", docs, "--embedder", "cohere", "-o", idx); code != ExitOK {
			b.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		took := time.Since(start)
		b.ReportMetric(float64(took)/float64(ideal), "x-ideal")
		undo := editPage(b, filepath.Join(docs, "007-page.md"))
		n := len(co.BatchSizes())
		if code, out, errs := runB(b, env, "index", docs, "--embedder", "cohere", "-o", idx); code != ExitOK {
			b.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		b.ReportMetric(float64(sumInts(co.BatchSizes()[n:])), "reindex-texts")
		b.ReportMetric(float64(len(co.BatchSizes())-n), "reindex-calls")
		undo()
	}
}

func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return v
	}
	return def
}
