package retrieval

// What "why not this chunk?" asks of the store: one batch of exact
// searches beside the query's (each expected source's chunks, the
// rankings, the near-duplicate window, the ANN check), and counts for
// the sources the searches score none of.

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
)

// diagSearch is what the diagnosis asks of the store, in one call beside
// the query's search (one QueryBatch on Qdrant), all exact: each ref's
// chunks, the top RankCap+1 points' ids and scores (to rank the expected
// chunks: with the query's filters, and without them for a chunk the
// filters cut), and for the ANN check the query's search done exactly.
type diagSearch struct {
	best []*ScoredChunk
	// window is the best dupWindow points with the query's filters and
	// their text, to count near-duplicates above an expected chunk.
	window []ScoredChunk
	// unscored counts, for each ref the search found no chunk of, the
	// chunks it has all the same (0: none, not in the collection).
	unscored      []int
	top, filtered []ScoredChunk
	exact         []ScoredChunk
	// rescoreOn and rescoreOff are the approximate search with
	// quantization rescoring on and off (quantized collections only).
	rescoreOn, rescoreOff []ScoredChunk
	quantized             bool
	// approxOnly: the server refused exact search; notes say so.
	approxOnly bool
	notes      []string
}

func (p *Pipeline) diagSearch(ctx context.Context, store Store, q Query, vec []float32, refs []ExpectRef, annCheck bool) (diagSearch, error) {
	d := diagSearch{best: make([]*ScoredChunk, len(refs)), unscored: make([]int, len(refs))}
	b := diagRequests(ctx, store, q, vec, refs, annCheck)
	got, err := searchAll(ctx, store, b.reqs)
	if err != nil && errors.Is(err, ErrConfig) && isApproximate(store) {
		// A server that refuses exact search (strict mode): what the
		// approximate index shows, with a note.
		for k := range b.reqs {
			b.reqs[k].Exact = false
		}
		if b.exactAt >= 0 {
			b.reqs = b.reqs[:b.exactAt] // no exact search to compare with
			b.exactAt, b.onAt, b.offAt = -1, -1, -1
		}
		got, err = searchAll(ctx, store, b.reqs)
		d.approxOnly = true
		d.notes = append(d.notes, "the server refused exact search: the expected sources are ranked by the approximate index, so an approximate miss shows as a top_k cut, and no ANN check was made")
	}
	if err != nil {
		return d, err
	}
	if err := p.bestOfRefs(ctx, store, refs, b, got, &d); err != nil {
		return d, err
	}
	if b.topAt >= 0 {
		d.top = got[b.topAt]
	}
	if b.windowAt >= 0 {
		d.window = got[b.windowAt]
	}
	if b.filteredAt >= 0 {
		d.filtered = got[b.filteredAt]
	}
	if b.exactAt >= 0 {
		d.exact = got[b.exactAt]
	}
	if b.onAt >= 0 {
		d.rescoreOn, d.rescoreOff, d.quantized = got[b.onAt], got[b.offAt], true
	}
	return d, nil
}

// diagBatch is the batch of searches diagSearch sends: reqs, and where
// each kind stands in it (-1: not asked).
type diagBatch struct {
	reqs []SearchRequest
	// at[k] is the ref reqs[k] looks up, for the first len(at) requests.
	at []int
	// topAt and filteredAt rank the top points without and with the
	// query's filters; windowAt reads the near-duplicate window.
	topAt, filteredAt, windowAt int
	// exactAt is the ANN check's exact search; onAt and offAt its
	// approximate one with quantization rescoring on and off.
	exactAt, onAt, offAt int
}

// diagRequests builds diagSearch's batch: a lookup per ref that has one,
// the rankings and the window when any ref does, and the ANN check's
// searches when annCheck is set.
func diagRequests(ctx context.Context, store Store, q Query, vec []float32, refs []ExpectRef, annCheck bool) diagBatch {
	b := diagBatch{topAt: -1, filteredAt: -1, windowAt: -1, exactAt: -1, onAt: -1, offAt: -1}
	for i, r := range refs {
		if req, ok := lookup(q, vec, r); ok {
			b.reqs = append(b.reqs, req)
			b.at = append(b.at, i)
		}
	}
	if len(b.reqs) > 0 {
		rank := SearchRequest{Vector: vec, Text: q.Question, Limit: RankCap + 1, Exact: true, IDsOnly: true}
		b.topAt = len(b.reqs)
		b.reqs = append(b.reqs, rank)
		if !q.Filters.IsEmpty() {
			rank.Filters = q.Filters
			b.filteredAt = len(b.reqs)
			b.reqs = append(b.reqs, rank)
		}
		if !q.NoDedup && !q.Rerank.On {
			b.windowAt = len(b.reqs)
			b.reqs = append(b.reqs, SearchRequest{Vector: vec, Text: q.Question, Limit: dupWindow, Exact: true, Filters: q.Filters})
		}
	}
	if annCheck {
		b.exactAt = len(b.reqs)
		same := SearchRequest{Vector: vec, Text: q.Question, Limit: CandidateLimit(q), Filters: q.Filters}
		ex := same
		ex.Exact = true
		b.reqs = append(b.reqs, ex)
		if qz, ok := store.(Quantizer); ok && !q.Exact && qz.Quantized(ctx) {
			// A quantized collection: the approximate search with
			// rescoring on and off, in the same batch.
			on, off := same, same
			on.Rescore, off.Rescore = new(bool), new(bool)
			*on.Rescore = true
			b.onAt, b.offAt = len(b.reqs), len(b.reqs)+1
			b.reqs = append(b.reqs, on, off)
		}
	}
	return b
}

// bestOfRefs sets d.best, each ref's best chunk in its lookup's answer
// (in its section, for a ref with an anchor), and, for a ref whose
// lookup scored none, d.unscored, the chunks it has all the same.
func (p *Pipeline) bestOfRefs(ctx context.Context, store Store, refs []ExpectRef, b diagBatch, got [][]ScoredChunk, d *diagSearch) error {
	for k, i := range b.at {
		r := refs[i]
		scored := got[k]
		for j := range scored {
			c := &scored[j].Chunk
			if r.Anchor == "" || c.ID == strings.TrimSpace(r.Raw) || p.inSection(c, r.Anchor) {
				sc := scored[j]
				d.best[i] = &sc
				break
			}
		}
	}
	for k, i := range b.at {
		if d.best[i] == nil {
			// The search scored none of its chunks (a lexical search
			// leaves out the chunks without a word of the question):
			// whether it has any is a count, not a search.
			var err error
			if d.unscored[i], err = p.countChunks(ctx, store, refs[i], b.reqs[k].Filters); err != nil {
				return err
			}
		}
	}
	return nil
}

// countChunks counts the chunks of ref (f is its lookup's filter): a
// Counter's count, or, for a section, the page's chunks in that section
// (PageChunker). 0 when the store can do neither; a store's error only
// when ctx ended (the count is a help: without it the ref is reported
// as not in the collection).
func (p *Pipeline) countChunks(ctx context.Context, store Store, ref ExpectRef, f Filters) (int, error) {
	if ref.Anchor != "" && ref.DocPath != "" {
		pc, ok := store.(PageChunker)
		if !ok {
			return 0, nil
		}
		n := 0
		for _, dp := range f.DocPaths {
			chunks, err := pc.PageChunks(ctx, dp)
			if err != nil {
				return 0, ctx.Err()
			}
			for j := range chunks {
				if p.inSection(&chunks[j], ref.Anchor) {
					n++
				}
			}
		}
		return n, nil
	}
	c, ok := store.(Counter)
	if !ok {
		return 0, nil
	}
	n, err := c.Count(ctx, f)
	if err != nil {
		return 0, ctx.Err()
	}
	return int(n), nil
}

// byDocPath reports whether some ref is looked up by its doc path.
func byDocPath(refs []ExpectRef) bool {
	for _, r := range refs {
		if r.PointID == "" && r.DocPath != "" {
			return true
		}
	}
	return false
}

// lookup is the search that finds ref's chunks, or ok false when ref
// names nothing searchable.
func lookup(q Query, vec []float32, r ExpectRef) (SearchRequest, bool) {
	req := SearchRequest{Vector: vec, Text: q.Question, Limit: 1, Exact: true}
	switch {
	case r.PointID != "":
		req.Filters.IDs = []string{r.PointID}
	case r.DocPath != "":
		req.Filters.DocPaths = docPathVariants(r.DocPath)
		if r.Anchor != "" {
			req.Limit = pageChunkLimit
		}
	case r.Module != "":
		req.Filters.Modules = []string{r.Module}
	case r.Chapter != "":
		req.Filters.Chapters = []string{r.Chapter}
	default:
		return req, false
	}
	return req, true
}

// inSection reports whether c sits under the section anchor names.
func (p *Pipeline) inSection(c *Chunk, anchor string) bool {
	anchor = strings.ToLower(anchor)
	if strings.EqualFold(c.HeadingID, anchor) {
		return true
	}
	if c.Section != "" && p.slugStyle().Slug(c.Section) == anchor {
		return true
	}
	cit := p.URLs.Cite(c)
	if u, err := url.Parse(cit.URL); err == nil && strings.EqualFold(u.Fragment, anchor) {
		return true
	}
	return false
}

// searchAll runs reqs in one batch call when the store has one, else
// concurrently.
func searchAll(ctx context.Context, store Store, reqs []SearchRequest) ([][]ScoredChunk, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	if bs, ok := store.(BatchSearcher); ok && len(reqs) > 1 {
		return bs.SearchBatch(ctx, reqs)
	}
	out := make([][]ScoredChunk, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = store.Search(ctx, reqs[i])
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}
