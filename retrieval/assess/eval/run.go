package eval

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
)

// Defaults of Options.
const (
	// DefaultConcurrency bounds the search batches (and embed calls) in
	// flight.
	DefaultConcurrency = 8
	// DefaultEmbedConcurrency bounds the embed calls in flight: 16 batches
	// of 96 cover 1,536 questions in one round trip.
	DefaultEmbedConcurrency = 16
	// DefaultLatencySample is how many cases are re-run singly to measure
	// query latency (a batched run cannot time one question).
	DefaultLatencySample = 10
	// DefaultBatchSize is the most questions per embed call (Cohere's limit).
	DefaultBatchSize = 96
)

// Options tune a run. The zero value is usable.
type Options struct {
	// Concurrency bounds the search batches in flight (each embed batch is
	// searched as one Pipeline.RetrieveBatch: one QueryBatch on Qdrant, or
	// retrieval.DefaultBatchConcurrency single searches at a time on a
	// store without batches) (default DefaultConcurrency).
	Concurrency int
	// EmbedConcurrency bounds the embed calls in flight (default
	// DefaultEmbedConcurrency). The embedder's own retries honour 429s.
	EmbedConcurrency int
	// LatencySample is how many cases are re-run one at a time, each
	// through Pipeline.Retrieve, after the batched run to measure query
	// latency (0: DefaultLatencySample; negative: none). Cases with
	// max_latency_ms are always in the sample; p95 and max_p95_ms use it.
	// With no sample, both are judged on the batched run's shared times.
	LatencySample int
	// BatchSize is the most questions per Embedder.Embed call (default:
	// the embedder's MaxBatch, else DefaultBatchSize).
	BatchSize int
	// BatchEmbedder, when set, embeds the batched questions in place of
	// the pipeline's Embedder (it must be the same model): the memo of
	// question vectors that the setups of a comparison share. The latency
	// sample still runs the pipeline's own Retrieve, so a sampled
	// question's latency is its own, not a wait on another setup's batch.
	BatchEmbedder retrieval.Embedder
	// TopK is the default top_k, over the set's (0: the set's, else
	// DefaultTopK). A case's own top_k wins over both.
	TopK int
	// Threshold is the score threshold of every query, over the set's
	// (nil: the set's, else 0).
	Threshold *float64
	// Thresholds override the set's pass/fail thresholds field by field.
	Thresholds Thresholds
	// CallTimeout bounds each embed and search call (0: no bound).
	CallTimeout time.Duration
	// Progress is called after each case finishes, with the number of
	// finished cases and the total.
	Progress func(done, total int)
	// SearchMode is the search mode of every normal-mode case's query
	// (retrieval.Query.SearchMode: the local index's hybrid, bm25 or
	// embedder; "" is the store's own).
	SearchMode string
	// Rerank reranks every normal-mode case. The report is then
	// the reranked run, and Report.Rerank scores the same candidates in
	// vector order beside it: one retrieval feeds both.
	Rerank retrieval.RerankOptions
	// OnCase is called with each case's result as it finishes, before
	// Progress. Callbacks are never called concurrently, so they may
	// update a UI's state behind a channel or a program's Send; they must
	// not block for long.
	OnCase func(CaseResult)
	// Generator, when set, answers every case that ran from its retrieved
	// context, after retrieval, and the answer-level checks run
	// (CheckAnswer); nil reports them as not run.
	Generator retrieval.Generator
	// AnswerConcurrency bounds the answers generated at once (default
	// DefaultAnswerConcurrency).
	AnswerConcurrency int
	// Judge, when set, grades each case's kept hits (eval --judge) once
	// retrieval is done; the report gains Judging.
	Judge *judge.Judge
	// ConfirmJudge, when set, is asked before the judge calls are made,
	// with their number (cache misses); false leaves the run unjudged.
	ConfirmJudge func(calls int) bool
	// JudgeProgress, when set, is called after each hit is judged.
	JudgeProgress func(done, total int)
	// ANNCheck searches every batch a second time exactly, beside the
	// approximate batch (one more batched call per search batch), and
	// reports the approximate search's recall@k and the index misses
	// (Report.ANN).
	ANNCheck bool
}

// MaxBatcher is implemented by embedders with a per-call limit on texts
// (Cohere 96); a run's embed batches are that size unless
// Options.BatchSize says otherwise. Embedders without it get
// DefaultBatchSize.
type MaxBatcher interface {
	MaxBatch() int
}

func embedderOf(p *retrieval.Pipeline) retrieval.Embedder {
	if p == nil {
		return nil
	}
	return p.Embedder
}

// ErrNoEmbedder is returned when a set has normal-mode cases and the
// pipeline has no Embedder or Store.
var ErrNoEmbedder = errors.New("the pipeline has no embedder or store")

// Run evaluates set on p. Normal-mode questions are embedded up front in
// batches of opts.BatchSize, one Embedder.Embed call per batch; each case is
// searched (Pipeline.RetrieveVector) as soon as its batch is embedded,
// with at most opts.Concurrency searches in flight. A case's embed latency
// is its batch's call time divided by the batch's size. A failing case is
// recorded in the report (StatusError), not returned. The report lists
// cases in set order whatever order they finished in. Run returns the
// report so far and ctx's error when ctx ends first.
func Run(ctx context.Context, p *retrieval.Pipeline, set Set, opts Options) (Report, error) {
	start := time.Now()
	st := settle(p, set, opts)
	rep := newReport(p, set, opts, st, start)
	r := newRunner(p, opts, len(set.Cases))
	searchSem := make(chan struct{}, st.conc)
	embedConc := opts.EmbedConcurrency
	if embedConc <= 0 {
		embedConc = DefaultEmbedConcurrency
	}
	embedSem := make(chan struct{}, embedConc)
	var wg sync.WaitGroup

	toEmbed := r.queue(ctx, set, st, &wg, searchSem)
	// The latency sample runs beside the batched run: each sampled case
	// alone through Pipeline.Retrieve (its own embed call and search).
	sampleIdx := make([]int, len(toEmbed))
	queries := make(map[int]retrieval.Query, len(toEmbed))
	for j, pe := range toEmbed {
		sampleIdx[j] = pe.i
		queries[pe.i] = pe.q
	}
	sampled := r.startSample(ctx, pickSample(set, sampleIdx, opts.LatencySample), queries)
	for b := 0; b < len(toEmbed); b += st.batchSize {
		batch := toEmbed[b:min(b+st.batchSize, len(toEmbed))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.embedAndSearch(ctx, set, batch, st.batchEmb, embedSem, searchSem)
		}()
	}
	wg.Wait()
	batchWall := time.Since(start)
	if n := len(set.Cases); n > 0 && batchWall > 0 {
		rep.ThroughputPerSec = float64(n) / batchWall.Seconds()
	}
	rep.LatencySample = r.applySample(set, <-sampled)
	answerOutage, judgeErr := r.afterSearch(ctx, set, st.conc, &rep)
	r.summarise(&rep, set, st.threshold)
	rep.WallMS = ms(time.Since(start))
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if err := r.outage(); err != nil {
		return rep, err
	}
	if answerOutage != nil {
		return rep, answerOutage
	}
	if rep.Judging != nil {
		rep.Judging.summarise(rep.Cases)
	}
	if judgeErr != nil {
		return rep, judgeErr
	}
	return rep, nil
}

// runSettings are a run's bounds and defaults, settled from its options,
// its set and its embedder.
type runSettings struct {
	conc, batchSize, topK int
	threshold             float64
	batchEmb              retrieval.Embedder
}

func settle(p *retrieval.Pipeline, set Set, opts Options) runSettings {
	st := runSettings{conc: opts.Concurrency, batchSize: opts.BatchSize, batchEmb: embedderOf(p)}
	if st.conc <= 0 {
		st.conc = DefaultConcurrency
	}
	if opts.BatchEmbedder != nil {
		st.batchEmb = opts.BatchEmbedder
	}
	if mb, ok := st.batchEmb.(MaxBatcher); ok && st.batchSize <= 0 {
		st.batchSize = mb.MaxBatch()
	}
	if st.batchSize <= 0 {
		st.batchSize = DefaultBatchSize
	}
	st.topK = retrieval.TopKOrDefault(opts.TopK, set.TopK)
	if set.Threshold != nil {
		st.threshold = *set.Threshold
	}
	if opts.Threshold != nil {
		st.threshold = *opts.Threshold
	}
	return st
}

// newReport is a run's report before any case ran: what ran against
// what, with which parameters.
func newReport(p *retrieval.Pipeline, set Set, opts Options, st runSettings, start time.Time) Report {
	rep := Report{
		Schema:    Schema,
		Set:       set.Name,
		Source:    set.Source,
		StartedAt: start.UTC().Truncate(time.Millisecond),
		Params:    RunParams{TopK: st.topK, Threshold: st.threshold, Concurrency: st.conc, BatchSize: st.batchSize},
	}
	if p != nil {
		rep.Backend = BackendInfo{Backend: p.Backend, Collection: p.Collection}
		if p.Embedder != nil {
			rep.Backend.Model = p.Embedder.Name()
		}
		rep.Backend.Ranking = p.Ranking(opts.SearchMode)
	}
	return rep
}

func newRunner(p *retrieval.Pipeline, opts Options, n int) *runner {
	return &runner{p: p, opts: opts, total: n, results: make([]CaseResult, n), vector: make([]CaseResult, n), rerankErr: make([]error, n),
		errs: make([]error, n), needsBackend: make([]bool, n), res: make([]*retrieval.Result, n),
		vecs: make([][]float32, n), ann: make([]annCase, n)}
}

// pending is a case waiting for its question's vector.
type pending struct {
	i int
	q retrieval.Query
}

// queue makes each case's query: a bad one fails its case, a
// selected-text case is searched at once (no vector), and the rest are
// returned, to be embedded in batches.
func (r *runner) queue(ctx context.Context, set Set, st runSettings, wg *sync.WaitGroup, searchSem chan struct{}) []pending {
	var toEmbed []pending
	for i, c := range set.Cases {
		k := c.TopK
		if k == 0 {
			k = st.topK
		}
		q := retrieval.Query{
			Question: c.Question, Mode: c.mode(), TopK: k, Threshold: st.threshold, Filters: c.Filters,
			SelectedText: c.SelectedText, SourceDocPath: c.SourceDocPath, SourceSection: c.SourceSection,
		}
		if q.Mode != retrieval.ModeSelectedText {
			q.Rerank = r.opts.Rerank
			q.SearchMode = r.opts.SearchMode
			q.WithArms = true
		}
		nq, _, _, err := retrieval.Normalize(q)
		switch {
		case err != nil:
			r.fail(i, c, q, err)
		case nq.Mode == retrieval.ModeSelectedText:
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.search(ctx, searchSem, i, c, q, nil, 0, 0)
			}()
		case r.p == nil || r.p.Embedder == nil || r.p.Store == nil:
			r.fail(i, c, q, ErrNoEmbedder)
		default:
			// Embed the normalised (possibly truncated) question: what the
			// pipeline would embed itself.
			q.Question = nq.Question
			toEmbed = append(toEmbed, pending{i, q})
			r.needsBackend[i] = true
			r.backendCases++
		}
	}
	return toEmbed
}

// embedAndSearch embeds a batch's questions in one call, under the embed
// concurrency bound, then searches them as one batch; a failed or
// cancelled embed call fails the batch's cases.
func (r *runner) embedAndSearch(ctx context.Context, set Set, batch []pending, emb retrieval.Embedder, embedSem, searchSem chan struct{}) {
	acquired := false
	select {
	case embedSem <- struct{}{}:
		acquired = true
	case <-ctx.Done():
	}
	// A free slot and a cancel can both be ready (select picks
	// either): no batch is sent once the run is cancelled.
	if err := ctx.Err(); err != nil {
		if acquired {
			<-embedSem
		}
		for _, pe := range batch {
			r.fail(pe.i, set.Cases[pe.i], pe.q, fmt.Errorf("embed: %w", err))
		}
		return
	}
	texts := make([]string, len(batch))
	for j, pe := range batch {
		texts[j] = pe.q.Question
	}
	cctx, cancel := r.callCtx(ctx)
	t0 := time.Now()
	vecs, err := emb.Embed(cctx, texts)
	took := time.Since(t0)
	cancel()
	<-embedSem
	r.countEmbed()
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("the embedder returned %d vectors for %d questions", len(vecs), len(texts))
	}
	if err != nil {
		for _, pe := range batch {
			r.fail(pe.i, set.Cases[pe.i], pe.q, fmt.Errorf("embed: %w", err))
		}
		return
	}
	// The batch's questions are searched as one batch (one
	// QueryBatch on Qdrant), under the search concurrency bound.
	share := took / time.Duration(len(batch))
	idx := make([]int, len(batch))
	qs := make([]retrieval.Query, len(batch))
	tooks := make([]time.Duration, len(batch))
	for j, pe := range batch {
		idx[j], qs[j], tooks[j] = pe.i, pe.q, share
	}
	r.searchBatch(ctx, searchSem, set, idx, qs, vecs, tooks, took)
}

// afterSearch runs what follows the searches: the misses' explanations,
// the answers and the judge, each when asked for. It returns the
// answers' outage and the judge's error.
func (r *runner) afterSearch(ctx context.Context, set Set, conc int, rep *Report) (answerOutage, judgeErr error) {
	if ctx.Err() == nil {
		r.explainMisses(ctx, set, conc)
	}
	if r.opts.Generator != nil {
		answerOutage = r.answerAll(ctx, set)
	}
	if r.opts.Judge != nil {
		rep.Judging, judgeErr = r.judgeAll(ctx, set)
	}
	return answerOutage, judgeErr
}

// summarise fills rep's figures from its cases: the summary, categories,
// calibration, verdict, rerank comparison and content gaps.
func (r *runner) summarise(rep *Report, set Set, threshold float64) {
	rep.ANN = r.annReport(set)
	rep.Notes = r.notes
	rep.Params.EmbedCalls = r.embedCalls
	rep.Cases = r.results
	rep.Summary = Summarize(rep.Cases)
	rep.Categories = Categorize(rep.Cases)
	rep.Calibration = Calibrate(CalibrationSamples(rep.Cases))
	Judge(rep, set.Thresholds.Merge(r.opts.Thresholds))
	if r.opts.Rerank.On {
		rep.Rerank = r.rerankReport(r.p, *rep, r.opts.Rerank)
		// The suggested threshold is for --threshold, a similarity: it is
		// calibrated on the vector order, not on relevance scores.
		rep.Calibration = Calibrate(CalibrationSamples(rep.Rerank.VectorCases))
	}
	// Content gaps are judged on the scores --threshold applies to: the
	// vector order's when a reranker reorders the hits.
	gapCases := rep.Cases
	if rep.Rerank != nil && len(rep.Rerank.VectorCases) == len(rep.Cases) {
		gapCases = rep.Rerank.VectorCases
	}
	rep.Unlabelled = Unlabelled(gapCases, threshold, rep.Calibration.Suggested)
}

// runner holds a run's shared state; mu guards everything below it.
type runner struct {
	p     *retrieval.Pipeline
	opts  Options
	total int

	mu      sync.Mutex
	results []CaseResult
	// vector[i] is case i scored in vector order (with Options.Rerank),
	// and rerankErrs the cases whose rerank failed.
	vector     []CaseResult
	rerankErrs []string
	rerankErr  []error
	done       int
	embedCalls int
	// errs[i] is case i's error (nil when it ran); needsBackend[i] marks
	// the backendCases cases that embed and search.
	errs         []error
	needsBackend []bool
	backendCases int
	// res[i] is case i's retrieval result (nil when it failed), kept for
	// the answers.
	res []*retrieval.Result
	// vecs[i] is case i's question vector (batched cases), kept to
	// explain a miss without embedding it again.
	vecs [][]float32
	// ann[i] compares case i's approximate and exact searches
	// (Options.ANNCheck).
	ann []annCase
	// notes say what could not be shown (a server that refused Count).
	notes []string
}

func (r *runner) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.opts.CallTimeout > 0 {
		return context.WithTimeout(ctx, r.opts.CallTimeout)
	}
	return context.WithCancel(ctx)
}

func (r *runner) countEmbed() {
	r.mu.Lock()
	r.embedCalls++
	r.mu.Unlock()
}

// search runs one case under sem and records its result.
func (r *runner) search(ctx context.Context, sem chan struct{}, i int, c Case, q retrieval.Query, vec []float32, share, call time.Duration) {
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		r.fail(i, c, q, fmt.Errorf("search: %w", ctx.Err()))
		return
	}
	cctx, cancel := r.callCtx(ctx)
	res, err := r.p.RetrieveVector(cctx, q, vec, share)
	cancel()
	<-sem
	if err != nil {
		r.fail(i, c, q, err)
		return
	}
	r.record(i, c, q, res, call)
}

// record scores a case's result (and, when reranked, its vector order).
func (r *runner) record(i int, c Case, q retrieval.Query, res retrieval.Result, call time.Duration) {
	if res.Rerank != nil {
		vr := Evaluate(c, q, res.VectorResult())
		vr.Index = i
		vr.Latency.EmbedCallMS = ms(call)
		r.mu.Lock()
		r.vector[i] = vr
		if res.Rerank.Err != nil {
			r.rerankErrs = append(r.rerankErrs, c.ID+": "+res.Rerank.Error)
			r.rerankErr[i] = res.Rerank.Err
		}
		r.mu.Unlock()
	}
	cr := Evaluate(c, q, res)
	cr.Index = i
	cr.Latency.EmbedCallMS = ms(call)
	r.keep(i, res)
	r.finish(i, cr)
}

// searchBatch searches the embedded cases idx (queries qs, vectors vecs)
// in one RetrieveBatch under sem and records their results.
func (r *runner) searchBatch(ctx context.Context, sem chan struct{}, set Set, idx []int, qs []retrieval.Query, vecs [][]float32, shares []time.Duration, call time.Duration) {
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		for j, i := range idx {
			r.fail(i, set.Cases[i], qs[j], fmt.Errorf("search: %w", ctx.Err()))
		}
		return
	}
	cctx, cancel := r.callCtx(ctx)
	var ann *annBatch
	var ewg sync.WaitGroup
	if r.opts.ANNCheck {
		// The same batch searched exactly, beside the approximate one.
		ewg.Add(1)
		go func() {
			defer ewg.Done()
			ann = r.exactBatch(cctx, qs, vecs)
		}()
	}
	results, errs := r.p.RetrieveBatch(cctx, qs, vecs, shares)
	ewg.Wait()
	cancel()
	<-sem
	if ann != nil {
		for j, i := range idx {
			if errs[j] == nil && ann.err == nil {
				ac := ann.compare(set.Cases[i], qs[j], results[j], j)
				r.mu.Lock()
				r.ann[i] = ac
				r.mu.Unlock()
			}
		}
	}
	for j, i := range idx {
		if errs[j] != nil {
			r.fail(i, set.Cases[i], qs[j], errs[j])
			continue
		}
		r.mu.Lock()
		r.vecs[i] = vecs[j]
		r.mu.Unlock()
		r.record(i, set.Cases[i], qs[j], results[j], call)
	}
}

// keep stores case i's retrieval result for the answers.
func (r *runner) keep(i int, res retrieval.Result) {
	if r.opts.Generator == nil && r.opts.Judge == nil {
		return
	}
	r.mu.Lock()
	r.res[i] = &res
	r.mu.Unlock()
}

// finish stores a result and calls the callbacks, one at a time.
func (r *runner) finish(i int, cr CaseResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results[i] = cr
	r.done++
	if r.opts.OnCase != nil {
		r.opts.OnCase(cr)
	}
	if r.opts.Progress != nil {
		r.opts.Progress(r.done, r.total)
	}
}

// fail records case i's error and its error result.
func (r *runner) fail(i int, c Case, q retrieval.Query, err error) {
	r.mu.Lock()
	r.errs[i] = err
	r.mu.Unlock()
	r.finish(i, errorResult(i, c, q, err))
}

func errorResult(i int, c Case, q retrieval.Query, err error) CaseResult {
	return CaseResult{
		Index: i, ID: c.ID, Question: c.Question, Category: c.Category, Kind: KindOf(c), Mode: c.mode(),
		Query: q, Status: StatusError, Reasons: []string{"error: " + err.Error()}, Hits: []HitResult{},
		Error: err.Error(), AnswerCheck: answerCheck(c), Expect: c.Expect,
	}
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
