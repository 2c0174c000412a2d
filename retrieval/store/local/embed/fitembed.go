package embed

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
)

// fitBatch is how many documents FitEmbed tokenises at once: it bounds
// the memory of a large corpus's tokens and features.
const fitBatch = 2048

// FitEmbed fits a model on docs, as New does, and returns the documents'
// vectors, Dim floats each, back to back: vecs[i*Dim:(i+1)*Dim] is what
// Embed would return for docs[i], bit for bit. It is New followed by Embed
// of docs, at about half the cost and a fraction of the memory: the
// documents are tokenised batch by batch across the CPUs (no corpus-wide
// token lists are held), and each document's features are computed once,
// for both the postings and its vector. progress, if not nil, is called
// with 0 once the corpus's statistics are counted (the fitting proper),
// then with the number of documents embedded so far, from one goroutine
// at a time. It stops with ctx's error between batches.
func FitEmbed(ctx context.Context, docs []string, progress func(done int)) (*Model, []float32, error) {
	return fitEmbedWithConfig(ctx, docs, defaultConfig(), progress)
}

func fitEmbedWithConfig(ctx context.Context, docs []string, cfg config, progress func(done int)) (*Model, []float32, error) {
	if len(docs) < cfg.lexDim && !cfg.noProjection {
		// A small corpus is projected, which needs every document's
		// features at once: fit and embed the plain way.
		m := newWithConfig(docs, cfg)
		if progress != nil {
			progress(0)
		}
		vecs, err := m.embedFlat(ctx, docs)
		if err == nil && progress != nil {
			progress(len(docs))
		}
		return m, vecs, err
	}
	m := &Model{cfg: cfg}
	m.glove, m.loadErr = loadGlove()
	if m.loadErr != nil {
		return nil, nil, fmt.Errorf("embed: load word vectors: %w", m.loadErr)
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	if err := m.countCorpus(ctx, docs, workers); err != nil {
		return nil, nil, err
	}
	if progress != nil {
		progress(0)
	}
	dim := m.Dim()
	vecs := make([]float32, len(docs)*dim)
	if err := m.fillPostings(ctx, docs, vecs, workers, progress); err != nil {
		return nil, nil, err
	}
	m.finishVectors(vecs, len(docs), workers)
	return m, vecs, nil
}

// embedFlat is Embed with the vectors back to back.
func (m *Model) embedFlat(ctx context.Context, docs []string) ([]float32, error) {
	out, err := m.Embed(ctx, docs)
	if err != nil {
		return nil, err
	}
	dim := m.Dim()
	vecs := make([]float32, len(docs)*dim)
	for i, v := range out {
		copy(vecs[i*dim:], v)
	}
	return vecs, nil
}

// parallel runs fn(w) for w in [0, workers) and waits.
func parallel(workers int, fn func(w int)) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { fn(w) })
	}
	wg.Wait()
}

// countCorpus is FitEmbed's first pass: each feature's document frequency
// (IDF and the size of its postings) and each word's share of the corpus.
// Frequencies are counted in shards, one per worker, keyed by the
// feature's hash, so no two workers write the same map.
func (m *Model) countCorpus(ctx context.Context, docs []string, workers int) error {
	shards := make([]map[uint64]int32, workers)
	words := make([]map[string]int, workers)
	totals := make([]int, workers)
	for w := range workers {
		shards[w] = make(map[uint64]int32)
		words[w] = make(map[string]int)
	}
	uniq := make([][]uint64, min(fitBatch, len(docs)))
	for lo := 0; lo < len(docs); lo += fitBatch {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("fit the embedder: %w", err)
		}
		hi := min(lo+fitBatch, len(docs))
		parallel(workers, func(w int) {
			seen := make(map[uint64]struct{})
			counts := words[w]
			for i := lo + w; i < hi && ctx.Err() == nil; i += workers {
				toks := tokenize(docs[i])
				clear(seen)
				keys := uniq[i-lo][:0]
				m.forEachFeature(toks, func(key uint64, _ byte) {
					if _, ok := seen[key]; !ok {
						seen[key] = struct{}{}
						keys = append(keys, key)
					}
				})
				uniq[i-lo] = keys
				for _, t := range toks {
					counts[t.main]++
					for _, a := range t.alts {
						counts[a]++
					}
				}
				totals[w] += len(toks)
			}
		})
		// A batch takes about a second on a busy machine: its documents
		// stop at a cancel, and a batch cut short is not counted.
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("fit the embedder: %w", err)
		}
		parallel(workers, func(w int) {
			df := shards[w]
			for _, keys := range uniq[:hi-lo] {
				for _, k := range keys {
					if int(k%uint64(workers)) == w {
						df[k]++
					}
				}
			}
		})
	}
	m.tableFromCounts(shards, len(docs))
	m.sharesFromCounts(words, totals)
	return nil
}

// tableFromCounts makes the lexical table (IDF and the postings' layout,
// as fitLexical makes them) from the document frequencies counted in
// shards, a feature in shard key%len(shards), over a corpus of docs
// documents; it empties the shards.
func (m *Model) tableFromCounts(shards []map[uint64]int32, docs int) {
	nkeys := 0
	for _, s := range shards {
		nkeys += len(s)
	}
	keys := make([]uint64, 0, nkeys)
	for _, s := range shards {
		keys = slices.AppendSeq(keys, maps.Keys(s))
	}
	slices.Sort(keys)
	m.docs = docs
	n := float64(docs)
	m.unseenIDF = float32(math.Log(n+1) + 1)
	t := &lexTable{keys: keys}
	t.idf = make([]float32, len(keys))
	t.start = make([]int32, len(keys)+1)
	for j, k := range keys {
		c := shards[int(k%uint64(len(shards)))][k]
		t.idf[j] = float32(math.Log((n+1)/(float64(c)+1)) + 1)
		t.start[j+1] = t.start[j] + c
	}
	clear(shards)
	t.hashSlots()
	m.lex = t
}

// sharesFromCounts sets each word's share of the corpus, as fitSemantic
// makes them, from the workers' word counts and token totals (words[0]
// becomes the sum).
func (m *Model) sharesFromCounts(words []map[string]int, totals []int) {
	total := 0
	for _, c := range totals {
		total += c
	}
	all := words[0]
	for _, ws := range words[1:] {
		for w, c := range ws {
			all[w] += c
		}
	}
	m.pCorpus = make(map[string]float32, len(all))
	for w, c := range all {
		m.pCorpus[w] = float32(float64(c) / float64(total))
	}
}

// fillPostings is FitEmbed's second pass: it computes each document's
// features once, hashes them into its vector's lexical part, adds their
// unit weights to the postings in document order, writes its SIF sum into
// the semantic part and adds it to the covariance of the common
// component, all in the order fitLexical and fitSemantic use.
func (m *Model) fillPostings(ctx context.Context, docs []string, vecs []float32, workers int, progress func(done int)) error {
	t := m.lex
	dim := m.Dim()
	total := t.start[len(t.keys)]
	t.doc = make([]int32, total)
	t.w = make([]float32, total)
	next := slices.Clone(t.start[:len(t.keys)])
	withPC := m.cfg.removePC && m.glove != nil && len(docs) >= 2
	var cov []float64
	if withPC {
		cov = make([]float64, gloveDim*gloveDim)
	}
	feats := make([][]feature, min(fitBatch, len(docs)))
	norms := make([]float64, min(fitBatch, len(docs)))
	for lo := 0; lo < len(docs); lo += fitBatch {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("embed %d documents: %w", len(docs), err)
		}
		hi := min(lo+fitBatch, len(docs))
		parallel(workers, func(w int) {
			for i := lo + w; i < hi && ctx.Err() == nil; i += workers {
				toks := tokenize(docs[i])
				v := vecs[i*dim : (i+1)*dim]
				m.sifSum(toks, v[:gloveDim])
				norms[i-lo] = norm(v[:gloveDim])
				f := m.features(toks)
				hashInto(v[gloveDim:], f)
				feats[i-lo] = unit(f)
			}
		})
		// As in countCorpus: a batch cut short by a cancel is not posted.
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("embed %d documents: %w", len(docs), err)
		}
		// Postings in document order, split by feature row; covariance
		// in document order, split by row of the matrix: each element
		// sums the same terms in the same order as a serial loop.
		parallel(workers, func(w int) {
			for i, v := range feats[:hi-lo] {
				for _, f := range v {
					if int(f.id)%workers == w {
						t.doc[next[f.id]] = int32(lo + i)
						t.w[next[f.id]] = f.w
						next[f.id]++
					}
				}
			}
			if cov == nil {
				return
			}
			for i := lo; i < hi; i++ {
				n := norms[i-lo]
				if n == 0 {
					continue
				}
				x := vecs[i*dim : i*dim+gloveDim]
				for r := w; r < gloveDim; r += workers {
					xi := float64(x[r]) / n
					row := cov[r*gloveDim : (r+1)*gloveDim]
					for j := range row {
						row[j] += xi * float64(x[j]) / n
					}
				}
			}
		})
		clear(feats)
		if progress != nil {
			progress(hi)
		}
	}
	if cov != nil {
		m.pc = principal(cov, gloveDim)
	}
	return nil
}

// finishVectors removes the common component from the semantic parts and
// weighs and normalises the two parts, as embedOne does.
func (m *Model) finishVectors(vecs []float32, n, workers int) {
	dim := m.Dim()
	parallel(workers, func(w int) {
		for i := w; i < n; i += workers {
			v := vecs[i*dim : (i+1)*dim]
			sem := v[:gloveDim]
			if m.pc != nil {
				var dot float32
				for i, u := range m.pc {
					dot += sem[i] * u
				}
				for i, u := range m.pc {
					sem[i] -= dot * u
				}
			}
			m.weigh(v)
		}
	})
}
