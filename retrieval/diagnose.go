package retrieval

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"ragscope/internal/editdist"
)

// "Why not this chunk?": for each expected source of a question, its best
// chunk for the question, its rank and score among the points, and the
// first stage of the pipeline that cut it. The cuts are read from the
// query's own record (Result.Dropped, the candidates it searched); only
// what the pipeline cannot know is asked of the store, in one call beside
// the query's search (a QueryBatch on Qdrant, so --expect adds no wait
// beyond one round trip's share): the expected chunk's score (a search
// restricted to its page or point id) and the ids and scores of the top
// RankCap+1 points, which rank it without scanning the collection. All
// of them are exact searches, so a chunk an approximate index cannot
// reach is still found.

// RankCap bounds the ranking: an expected chunk below this many points is
// "ranked beyond 1,000".
const RankCap = 1000

// pageChunkLimit bounds the chunks of one page read to find a section.
const pageChunkLimit = 256

// dupWindow is how many of the best points are read with their text to
// count the near-duplicates above an expected chunk the query's
// candidates do not hold: below it, its rank counts them.
const dupWindow = 100

// Cut codes of Expected.Cut, in pipeline order.
const (
	CutNone        = ""
	CutNotFound    = "not_found"
	CutNoMatch     = "no_match"
	CutFilter      = "filter"
	CutThreshold   = "threshold"
	CutApproximate = "approximate"
	CutTopK        = "top_k"
	CutDuplicate   = "duplicate"
	CutRerank      = "rerank"
)

// ExpectRef is an expected source: a doc path (with or without a leading
// "docs/"), a citation URL or path, each with an optional #anchor, or a
// point id.
type ExpectRef struct {
	// Raw is the reference as given.
	Raw string
	// DocPath is a doc path ("" for a URL or a point id).
	DocPath string
	// URLPath is the path of a citation URL ("" otherwise).
	URLPath string
	// Anchor is the #section, "" for the whole page.
	Anchor string
	// PointID is a point id ("" otherwise).
	PointID string
	// Module and Chapter name a whole module or chapter (an eval case's
	// expectation; --expect does not parse them): its best chunk for the
	// question is the one explained.
	Module, Chapter string
}

// ModuleRef is the expected source "every chunk of module m".
func ModuleRef(m string) ExpectRef { return ExpectRef{Raw: "module " + m, Module: m} }

// ChapterRef is the expected source "every chunk of chapter c".
func ChapterRef(c string) ExpectRef { return ExpectRef{Raw: "chapter " + c, Chapter: c} }

// ErrBadExpectRef is returned for a reference that cannot name a source.
var ErrBadExpectRef = &ValidationError{Field: "expect", Msg: "an expected source is a doc path, a citation URL or a point id."}

// ParseExpectRef parses a --expect REF.
func ParseExpectRef(raw string) (ExpectRef, error) {
	r := ExpectRef{Raw: raw}
	s := strings.TrimSpace(raw)
	if s == "" || s == "#" {
		return r, invalid(ErrBadExpectRef, strconv.Quote(raw))
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return r, invalid(ErrBadExpectRef, strconv.Quote(raw))
		}
		r.URLPath, r.Anchor = u.Path, u.Fragment
		if r.URLPath == "" {
			r.URLPath = "/"
		}
		return r, nil
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s, r.Anchor = s[:i], s[i+1:]
	}
	switch {
	case isDocFile(s):
		r.DocPath = strings.TrimPrefix(s, "./")
	case strings.HasPrefix(s, "/"):
		r.URLPath = s
	case r.Anchor == "" && isPointID(s):
		r.PointID = s
	default:
		r.DocPath = strings.TrimPrefix(s, "./")
	}
	return r, nil
}

func isDocFile(s string) bool {
	return strings.HasSuffix(s, ".md") || strings.HasSuffix(s, ".mdx")
}

// isPointID reports whether s is a Qdrant point id: an unsigned integer or
// a UUID.
func isPointID(s string) bool {
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return true
	}
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

// docPathVariants are the stored doc paths a REF's doc path may match:
// as given, with or without a leading "docs/" or "website/docs/", and,
// when it has no .md/.mdx extension, with either.
func docPathVariants(p string) []string {
	p = strings.TrimPrefix(p, "/")
	base := strings.TrimPrefix(strings.TrimPrefix(p, "website/"), "docs/")
	exts := []string{""}
	if !isDocFile(base) {
		exts = []string{"", ".md", ".mdx"}
	}
	out := []string{}
	seen := map[string]bool{}
	for _, pre := range []string{"", "docs/", "website/docs/"} {
		for _, ext := range exts {
			if v := pre + base + ext; !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// Expected is where one expected source went for a question.
type Expected struct {
	// Ref is the reference as given.
	Ref string `json:"ref"`
	// PointID, DocPath and Section identify the source's best chunk for
	// the question (empty when not found).
	PointID string `json:"point_id"`
	DocPath string `json:"doc_path,omitempty"`
	Section string `json:"section,omitempty"`
	// Rank is the chunk's rank as the results list would show it: its
	// rank in the results when it is there; else its place in the
	// query's search (its filters applied, unless they cut the chunk:
	// then among all points), from 1, less the near-duplicates above it
	// that dedup leaves out of the list (DuplicatesAbove; counted among
	// the query's candidates and the best dupWindow points). With a
	// reranker, its place in the vector search. 0 when not found.
	Rank int `json:"rank"`
	// DuplicatesAbove is the number of near-duplicates above the chunk
	// that the list leaves out (so -k Rank+DuplicatesAbove reaches it).
	DuplicatesAbove int `json:"duplicates_above,omitempty"`
	// ChunkIndex and TotalChunks place the best chunk in its page (from
	// 0; nil when unknown).
	ChunkIndex  *int `json:"chunk_index,omitempty"`
	TotalChunks *int `json:"total_chunks,omitempty"`
	// ExactRank is the rank an exact search gives; RankCap+1 with Beyond
	// when more than RankCap points score above it.
	ExactRank int  `json:"exact_rank"`
	Beyond    bool `json:"rank_beyond,omitempty"`
	// Score is the chunk's score for the question (nil when not found).
	Score *float64 `json:"score"`
	// Cut is the first stage that cut the chunk (the Cut* codes), "" when
	// it reached the results. CutNoMatch: the source is in the collection
	// (Chunks chunks) but the search scored none of them (no chunk holds
	// a word of the question, on a lexical search).
	Cut string `json:"cut"`
	// Chunks is the number of the source's chunks, with CutNoMatch.
	Chunks int `json:"chunks,omitempty"`
	// Detail says it in words: "in the results at #2", "cut by top_k 5
	// (rank 23 of 5)", "not in the collection"; after a fused (hybrid)
	// search it first places the chunk in each arm: "dense #40, bm25: no
	// query word in the chunk, fused #22, cut by top_k 5".
	Detail string `json:"detail"`
	// Arms, after a fused search, place the chunk in each arm alone (nil
	// otherwise, and when the fused ranking did not reach the chunk).
	Arms []Arm `json:"arms,omitempty"`
}

// Found reports whether the expected source has a chunk in the
// collection (scored for the question or not).
func (e *Expected) Found() bool { return e.Cut != CutNotFound }

// RankText is the rank as people read it: "#23", "beyond #1,000", "".
func (e *Expected) RankText() string {
	switch {
	case e.Beyond:
		return "beyond #1,000"
	case e.Rank > 0:
		return "#" + strconv.Itoa(e.Rank)
	}
	return ""
}

// Sentence is the one-line account of e, its rank said once: "expected
// docs/a.md ranked #23 (0.310), cut by top_k 5", "expected docs/a.md in
// the results at #2 (0.610)", "expected x not in the collection".
func (e *Expected) Sentence() string {
	name := e.Ref
	score := ""
	if e.Score != nil {
		score = fmt.Sprintf(" (%.3f)", *e.Score)
	}
	switch e.Cut {
	case CutNotFound:
		return "expected " + name + " " + e.Detail
	case CutNoMatch:
		return "expected " + name + ": " + e.Detail
	case CutNone:
		return "expected " + name + " " + e.Detail + score + e.dupsText()
	}
	s := "expected " + name
	if rt := e.RankText(); rt != "" {
		s += " ranked " + rt
	}
	return s + score + ", " + e.Detail + e.dupsText()
}

// dupsText says that near-duplicates above the chunk were left out of
// the list, and for a chunk top_k cut, the top_k that reaches it.
func (e *Expected) dupsText() string {
	n := e.DuplicatesAbove
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("; %d near-%s above it left out of the list", n, plural(n, "duplicate", "duplicates"))
	if e.Cut == CutTopK && !e.Beyond {
		s += fmt.Sprintf(", so -k %d reaches it", e.Rank+n)
	}
	return s
}

// PlaceText is where the best chunk sits in its page: "chunk 2/6", ""
// when unknown.
func (e *Expected) PlaceText() string {
	if e.ChunkIndex == nil {
		return ""
	}
	s := "chunk " + strconv.Itoa(*e.ChunkIndex+1)
	if e.TotalChunks != nil {
		s += "/" + strconv.Itoa(*e.TotalChunks)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Diagnosis is what a diagnosed query says beside its result.
type Diagnosis struct {
	// Expected says where each expected source went (in refs order).
	Expected []Expected
	// ANN compares the approximate search with an exact one (nil when not
	// asked, or when the server refused exact search).
	ANN *ANNCheck
	// Notes say what could not be shown (a server that refuses exact
	// search).
	Notes []string
}

// Diagnose runs q like Retrieve and, for each of refs, says where its
// best chunk for the question went (see Expected); with annCheck it also
// compares the query's search with an exact one (ANNCheck). What the
// diagnosis asks of the store runs beside the query's search, in one
// batched call (see diagSearch). A ref that matches nothing comes back
// with Cut CutNotFound. Selected-text queries have no search to explain.
func (p *Pipeline) Diagnose(ctx context.Context, q Query, refs []ExpectRef, annCheck bool) (Result, Diagnosis, error) {
	return p.diagnose(ctx, q, nil, 0, refs, annCheck)
}

// DiagnoseVector is Diagnose for a question already embedded (vec), as
// RetrieveVector is to Retrieve.
func (p *Pipeline) DiagnoseVector(ctx context.Context, q Query, vec []float32, embedTook time.Duration, refs []ExpectRef, annCheck bool) (Result, Diagnosis, error) {
	if vec == nil {
		vec = []float32{}
	}
	return p.diagnose(ctx, q, vec, embedTook, refs, annCheck)
}

func (p *Pipeline) diagnose(ctx context.Context, q Query, vec []float32, embedTook time.Duration, refs []ExpectRef, annCheck bool) (Result, Diagnosis, error) {
	var d Diagnosis
	if q.Mode == ModeSelectedText {
		return Result{}, d, fmt.Errorf("%w: expected sources and the ANN check explain a search; selected-text mode runs none", ErrConfig)
	}
	nq, _, _, err := Normalize(q)
	if err != nil {
		return Result{}, d, err
	}
	// URL refs name pages by their citation; map them to doc paths first.
	resolved, err := p.ResolveRefs(ctx, refs)
	if err != nil {
		return Result{}, d, err
	}
	// A doc-path lookup is a filtered search: let the store prepare for
	// it beside the embedding.
	var prep chan error
	if fp, ok := p.Store.(FilterPreparer); ok && byDocPath(resolved) {
		prep = make(chan error, 1)
		go func() { prep <- fp.PrepareFilters(ctx) }()
	}
	var diag diagSearch
	var diagErr error
	b := &beside{run: func(ctx context.Context, store Store, vec []float32) {
		if prep != nil {
			diagErr = <-prep
			prep = nil
		}
		if diagErr == nil {
			diag, diagErr = p.diagSearch(ctx, store, nq, vec, resolved, annCheck)
		}
	}}
	res, err := p.retrieve(ctx, q, vec, embedTook, b)
	if prep != nil {
		<-prep // the search failed before the diagnosis ran
	}
	if err != nil {
		return Result{}, d, err
	}
	if diagErr != nil {
		return Result{}, d, fmt.Errorf("expected sources or exact search: %w", diagErr)
	}
	store, err := p.storeFor(nq)
	if err != nil {
		return Result{}, d, err
	}
	d.Notes = diag.notes
	if annCheck && !diag.approxOnly {
		d.ANN = compareANN(nq, b.cands, diag.exact, isApproximate(store))
		if diag.quantized {
			d.ANN.Quantization = &QuantizationCheck{
				RescoreOn:  compareANN(nq, diag.rescoreOn, diag.exact, true).Recall,
				RescoreOff: compareANN(nq, diag.rescoreOff, diag.exact, true).Recall,
				Applied:    "the query's search left rescoring to the server's default (on)",
			}
		}
	}
	d.Expected = p.expectedOf(nq, &res, b.cands, store, refs, resolved, &diag)
	return res, d, nil
}

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
	var reqs []SearchRequest
	var at []int
	for i, r := range refs {
		if req, ok := lookup(q, vec, r); ok {
			reqs = append(reqs, req)
			at = append(at, i)
		}
	}
	topAt, filteredAt, exactAt, windowAt := -1, -1, -1, -1
	if len(reqs) > 0 {
		rank := SearchRequest{Vector: vec, Text: q.Question, Limit: RankCap + 1, Exact: true, IDsOnly: true}
		topAt = len(reqs)
		reqs = append(reqs, rank)
		if !q.Filters.IsEmpty() {
			rank.Filters = q.Filters
			filteredAt = len(reqs)
			reqs = append(reqs, rank)
		}
		if !q.NoDedup && !q.Rerank.On {
			windowAt = len(reqs)
			reqs = append(reqs, SearchRequest{Vector: vec, Text: q.Question, Limit: dupWindow, Exact: true, Filters: q.Filters})
		}
	}
	onAt, offAt := -1, -1
	if annCheck {
		exactAt = len(reqs)
		same := SearchRequest{Vector: vec, Text: q.Question, Limit: CandidateLimit(q), Filters: q.Filters}
		ex := same
		ex.Exact = true
		reqs = append(reqs, ex)
		if qz, ok := store.(Quantizer); ok && !q.Exact && qz.Quantized(ctx) {
			// A quantized collection: the approximate search with
			// rescoring on and off, in the same batch.
			on, off := same, same
			on.Rescore, off.Rescore = new(bool), new(bool)
			*on.Rescore = true
			onAt, offAt = len(reqs), len(reqs)+1
			reqs = append(reqs, on, off)
		}
	}
	got, err := searchAll(ctx, store, reqs)
	if err != nil && errors.Is(err, ErrConfig) && isApproximate(store) {
		// A server that refuses exact search (strict mode): what the
		// approximate index shows, with a note.
		for k := range reqs {
			reqs[k].Exact = false
		}
		if exactAt >= 0 {
			reqs = reqs[:exactAt] // no exact search to compare with
			exactAt, onAt, offAt = -1, -1, -1
		}
		got, err = searchAll(ctx, store, reqs)
		d.approxOnly = true
		d.notes = append(d.notes, "the server refused exact search: the expected sources are ranked by the approximate index, so an approximate miss shows as a top_k cut, and no ANN check was made")
	}
	if err != nil {
		return d, err
	}
	for k, i := range at {
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
	for k, i := range at {
		if d.best[i] == nil {
			// The search scored none of its chunks (a lexical search
			// leaves out the chunks without a word of the question):
			// whether it has any is a count, not a search.
			if d.unscored[i], err = p.countChunks(ctx, store, refs[i], reqs[k].Filters); err != nil {
				return d, err
			}
		}
	}
	if topAt >= 0 {
		d.top = got[topAt]
	}
	if windowAt >= 0 {
		d.window = got[windowAt]
	}
	if filteredAt >= 0 {
		d.filtered = got[filteredAt]
	}
	if exactAt >= 0 {
		d.exact = got[exactAt]
	}
	if onAt >= 0 {
		d.rescoreOn, d.rescoreOff, d.quantized = got[onAt], got[offAt], true
	}
	return d, nil
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

// ResolveRefs returns refs with each URL ref's doc path filled in from
// the collection's citations (one walk of the store, only when a URL ref
// has no doc path yet); a URL no chunk cites keeps an empty DocPath.
// Diagnose resolves its refs itself; a caller diagnosing many questions
// resolves them once.
func (p *Pipeline) ResolveRefs(ctx context.Context, refs []ExpectRef) ([]ExpectRef, error) {
	out := append([]ExpectRef(nil), refs...)
	need := false
	for _, r := range refs {
		need = need || (r.URLPath != "" && r.DocPath == "")
	}
	if !need {
		return out, nil
	}
	pages, err := p.pages(ctx)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].URLPath == "" || out[i].DocPath != "" {
			continue
		}
		want := strings.TrimSuffix(out[i].URLPath, "/")
		for _, pg := range pages {
			if pg.path != "" && strings.TrimSuffix(pg.path, "/") == want {
				out[i].DocPath = pg.docPath
				break
			}
		}
	}
	return out, nil
}

// page is one document of the collection and its citation URL's path.
type page struct {
	docPath string
	path    string
}

// pages walks the store for its documents (Walker stores only).
func (p *Pipeline) pages(ctx context.Context) ([]page, error) {
	w, ok := p.Store.(Walker)
	if !ok {
		return nil, fmt.Errorf("%w: this backend cannot list its documents to match a URL: give a doc path", ErrConfig)
	}
	seen := map[string]bool{}
	var out []page
	err := w.Walk(ctx, func(chunks []Chunk, _ int) error {
		for i := range chunks {
			c := &chunks[i]
			if c.DocPath == "" || seen[c.DocPath] {
				continue
			}
			seen[c.DocPath] = true
			pg := page{docPath: c.DocPath}
			if cit := p.URLs.Cite(c); cit.URL != "" {
				if u, err := url.Parse(cit.URL); err == nil {
					pg.path = u.Path
				}
			}
			out = append(out, pg)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return out, nil
}

// DocPaths lists the collection's doc paths (a walk of the store), for
// suggesting the closest to a REF that matched nothing.
func (p *Pipeline) DocPaths(ctx context.Context) ([]string, error) {
	pages, err := p.pages(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(pages))
	for i, pg := range pages {
		out[i] = pg.docPath
	}
	sort.Strings(out)
	return out, nil
}

// Closest returns up to n of paths closest to ref (by edit distance of
// their names, then of the whole path).
func Closest(ref string, paths []string, n int) []string {
	ref = strings.ToLower(strings.TrimPrefix(ref, "docs/"))
	base := func(s string) string {
		s = strings.TrimSuffix(strings.TrimSuffix(s, ".mdx"), ".md")
		if i := strings.LastIndexByte(s, '/'); i >= 0 {
			s = s[i+1:]
		}
		return s
	}
	type cand struct {
		p    string
		d, e int
	}
	cs := make([]cand, len(paths))
	for i, p := range paths {
		lp := strings.ToLower(strings.TrimPrefix(p, "docs/"))
		cs[i] = cand{p, editdist.Levenshtein(base(ref), base(lp)), editdist.Levenshtein(ref, lp)}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].e < cs[j].e
	})
	out := []string{}
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].p)
	}
	return out
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

// expectedOf turns the located chunks into Expected entries: each is ranked
// among the top points (with the query's filters when they keep it) and
// its cut read from the query's record.
func (p *Pipeline) expectedOf(q Query, res *Result, cands []ScoredChunk, store Store, refs, resolved []ExpectRef, d *diagSearch) []Expected {
	out := make([]Expected, len(refs))
	for i, r := range refs {
		e := &out[i]
		e.Ref = r.Raw
		sc := d.best[i]
		if sc == nil && d.unscored[i] > 0 {
			e.DocPath = resolved[i].DocPath
			e.Cut, e.Chunks, e.Detail = CutNoMatch, d.unscored[i], noMatchDetail(d.unscored[i], rankingOf(store))
			continue
		}
		if sc == nil {
			e.Cut, e.Detail = CutNotFound, notFoundDetail(r, resolved[i])
			continue
		}
		score := sc.Score
		e.PointID, e.DocPath, e.Section, e.Score = sc.Chunk.ID, sc.Chunk.DocPath, sc.Chunk.Section, &score
		e.ChunkIndex, e.TotalChunks = sc.Chunk.ChunkIndex, sc.Chunk.TotalChunks
		top := d.top
		if !q.Filters.IsEmpty() && q.Filters.Match(&sc.Chunk) {
			top = d.filtered
		}
		// Points above it, and tied points the pipeline orders first
		// (ties go by chunk id, as lessScored orders them).
		n := 1
		for _, s := range top {
			if s.Chunk.ID != e.PointID && (s.Score > score || (s.Score == score && s.Chunk.ID < e.PointID)) {
				n++
			}
		}
		e.ExactRank = n
		if n > RankCap {
			e.ExactRank, e.Beyond = RankCap+1, true
		}
		if fusedRanking(top) {
			// A fused score depends on the other points the arms
			// return: the chunk's place is its place in the fused
			// ranking itself, not a score compared with it.
			fusedPlace(top, e, sc)
		}
		e.Rank = e.ExactRank
		p.cutOf(q, res, cands, store, sc, e, d.approxOnly, d.window)
		if e.Arms != nil {
			e.Detail = armsDetail(e.Arms, e.ExactRank) + ", " + e.Detail
		}
	}
	return out
}

// duplicatesAbove counts the near-duplicates among sorted[:n] (in
// lessScored order) that dedup would leave out of a list holding them.
func duplicatesAbove(sorted []ScoredChunk, n int) int {
	var accepted []dedupKey
	dups := 0
	for i := 0; i < n && i < len(sorted); i++ {
		key := newDedupKey(&sorted[i].Chunk)
		if _, _, dup := key.duplicateOf(accepted); dup {
			dups++
			continue
		}
		key.rank = len(accepted) + 1
		accepted = append(accepted, key)
	}
	return dups
}

// noMatchDetail says that none of a source's n chunks was scored: on a
// lexical ranking (BM25, hybrid) none holds a word of the question.
func noMatchDetail(n int, ranking string) string {
	switch {
	case ranking == "" && n == 1:
		return "in the collection (1 chunk), but the search did not return it"
	case ranking == "":
		return "in the collection (" + strconv.Itoa(n) + " chunks), but the search returned none of them"
	case n == 1:
		return "1 chunk, which matches no word of the question"
	}
	return strconv.Itoa(n) + " chunks, none matches a word of the question"
}

// fusedRanking reports whether top comes from a fused search (its hits
// carry their arms).
func fusedRanking(top []ScoredChunk) bool { return len(top) > 0 && top[0].Arms != nil }

// fusedPlace sets e's rank, score and arms from the chunk's place in the
// fused ranking top (beyond it when the ranking does not hold it), and
// sc's score to its fused one.
func fusedPlace(top []ScoredChunk, e *Expected, sc *ScoredChunk) {
	for j := range top {
		if top[j].Chunk.ID == e.PointID {
			score := top[j].Score
			e.ExactRank, e.Beyond, e.Score, e.Arms = j+1, false, &score, top[j].Arms
			sc.Score = score
			return
		}
	}
	e.ExactRank, e.Beyond = RankCap+1, true
}

// armsDetail places a chunk in each arm and in the fusion: "dense #40,
// bm25: no query word in the chunk, fused #22".
func armsDetail(arms []Arm, fused int) string {
	parts := make([]string, 0, len(arms)+1)
	for _, a := range arms {
		switch {
		case a.Rank > 0:
			parts = append(parts, fmt.Sprintf("%s #%d", a.Label, a.Rank))
		case a.Label == "bm25":
			parts = append(parts, "bm25: no query word in the chunk")
		default:
			parts = append(parts, a.Label+": beyond its prefetch limit")
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("fused #%d", fused)), ", ")
}

func notFoundDetail(r, resolved ExpectRef) string {
	switch {
	case r.URLPath != "" && resolved.DocPath == "":
		return "not in the collection (no chunk cites that URL)"
	case r.Anchor != "":
		return "not in the collection (no chunk of that page has section #" + r.Anchor + ")"
	}
	return "not in the collection"
}

// cutOf fills e's Cut and Detail: the first stage, in pipeline order,
// that cut the expected chunk sc, read from the query's record.
func (p *Pipeline) cutOf(q Query, res *Result, cands []ScoredChunk, store Store, sc *ScoredChunk, e *Expected, approxOnly bool, window []ScoredChunk) {
	if !q.Filters.Match(&sc.Chunk) {
		e.Cut, e.Detail = CutFilter, "filtered out by "+q.Filters.String()
		return
	}
	key := chunkKey(&sc.Chunk)
	// Its place among the candidates the query searched, else among the
	// best points; less the near-duplicates above it the list leaves out
	// (with a reranker the list's order is the reranker's: the place is
	// the vector search's).
	sorted := sortScored(cands)
	placed := false
	for i := range sorted {
		if chunkKey(&sorted[i].Chunk) == key {
			e.Rank, placed = i+1, true
			if !q.NoDedup && !q.Rerank.On {
				e.DuplicatesAbove = duplicatesAbove(sorted, i)
			}
			break
		}
	}
	if !placed && !q.NoDedup && !q.Rerank.On {
		w := sortScored(window)
		for i := range w {
			if chunkKey(&w[i].Chunk) == key {
				e.DuplicatesAbove = duplicatesAbove(w, i)
				break
			}
		}
	}
	e.Rank -= e.DuplicatesAbove
	for _, h := range res.Hits {
		if chunkKey(&h.Chunk) == key {
			e.Rank = h.Rank
			e.Cut, e.Detail = CutNone, "in the results at #"+strconv.Itoa(h.Rank)
			return
		}
	}
	for _, d := range res.Dropped {
		if chunkKey(&d.Chunk) != key {
			continue
		}
		switch d.Reason {
		case ReasonBelowThreshold:
			e.Cut, e.Detail = CutThreshold, fmt.Sprintf("below the score threshold %.2f", q.Threshold)
		case ReasonDuplicate:
			e.Cut, e.Detail = CutDuplicate, fmt.Sprintf("folded into a duplicate (#%d)", d.DuplicateOf)
		case ReasonBelowRerankThreshold:
			rel := 0.0
			if d.RerankScore != nil {
				rel = *d.RerankScore
			}
			e.Cut, e.Detail = CutRerank, fmt.Sprintf("moved out by the reranker (relevance %.3f below the rerank threshold %.2f)", rel, q.Rerank.Threshold)
		default:
			e.Cut, e.Detail = d.Reason, d.Reason
		}
		return
	}
	limit := CandidateLimit(q)
	inCands := false
	for i := range sorted {
		if chunkKey(&sorted[i].Chunk) == key {
			inCands = true
		}
	}
	switch {
	case Below(sc.Score, q.Threshold):
		e.Cut, e.Detail = CutThreshold, fmt.Sprintf("below the score threshold %.2f", q.Threshold)
	case inCands && q.Rerank.On && res.Rerank != nil && res.Rerank.Err == nil:
		// Sent to the reranker, which placed it below its top_k.
		e.Cut, e.Detail = CutRerank, fmt.Sprintf("moved out by the reranker (not in its top %d)", q.TopK)
	case inCands && q.Rerank.On:
		// The rerank failed: the vector result's top_k cut it.
		e.Cut, e.Detail = CutTopK, fmt.Sprintf("cut by top_k %d (the rerank failed; the vector order stands)", q.TopK)
	case !e.Beyond && e.ExactRank <= limit && isApproximate(store) && !q.Exact && !approxOnly:
		e.Cut, e.Detail = CutApproximate, fmt.Sprintf("missed by approximate search (an exact search ranks it within the %d searched)", limit)
	case q.Rerank.On:
		e.Cut, e.Detail = CutTopK, fmt.Sprintf("cut by top_k %d: beyond the %d candidates searched for the reranker", q.TopK, limit)
	default:
		e.Cut, e.Detail = CutTopK, fmt.Sprintf("cut by top_k %d", q.TopK)
	}
}

// isApproximate reports whether store's searches may miss points an exact
// search returns.
func isApproximate(store Store) bool {
	a, ok := store.(Approximator)
	return ok && a.Approximate()
}
