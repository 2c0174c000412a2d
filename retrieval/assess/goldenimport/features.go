package goldenimport

import (
	"context"
	"runtime"
	"sync"

	"ragscope/internal/textnorm"
)

// features are what the near-duplicate search reads of a question, none
// of it depending on the other questions: worked out ahead, in parallel,
// while Dedup's single pass (whose every step depends on what it kept
// before) consumes them in input order.
type features struct {
	norm   string
	joined string // "\x00" + norm without its spaces
	rs     []rune // norm's runes
	sig    signature
	hist   histogram
	digits string
}

func featuresOf(text string) features {
	norm := textnorm.Normalize(text)
	joined := make([]byte, 1, len(norm)+1) // NUL: no normalised text starts with it
	for i := range len(norm) {
		if norm[i] != ' ' {
			joined = append(joined, norm[i])
		}
	}
	rs := []rune(norm)
	return features{norm: norm, joined: string(joined), rs: rs, sig: newSignature(rs), hist: newHistogram(rs), digits: numbers(norm)}
}

// featureChunk is how many questions one worker takes at a time.
const featureChunk = checkEvery

// featureStream works out the features of qs on GOMAXPROCS workers, a
// bounded number of chunks ahead of the reader; the channel yields each
// chunk's features in input order and closes when all are sent or ctx
// ends.
func featureStream(ctx context.Context, qs []Question) <-chan []features {
	workers := max(1, runtime.GOMAXPROCS(0))
	out := make(chan []features, workers)
	go func() {
		defer close(out)
		// Each chunk has its own result channel, queued in order: the
		// workers finish chunks in any order, the reader takes them in
		// the input's.
		pending := make(chan chan []features, workers)
		var wg sync.WaitGroup
		go func() {
			defer close(pending)
			sem := make(chan struct{}, workers)
			for lo := 0; lo < len(qs); lo += featureChunk {
				chunk := qs[lo:min(lo+featureChunk, len(qs))]
				res := make(chan []features, 1)
				select {
				case pending <- res:
				case <-ctx.Done():
					return
				}
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					fs := make([]features, len(chunk))
					for i, q := range chunk {
						fs[i] = featuresOf(q.Text)
					}
					res <- fs
				}()
			}
		}()
		for res := range pending {
			select {
			case out <- <-res:
			case <-ctx.Done():
				for range pending {
				}
				wg.Wait()
				return
			}
		}
		wg.Wait()
	}()
	return out
}
