package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"ragscope/internal/parallel"
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
	conc := opts.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	batchSize := opts.BatchSize
	batchEmb := embedderOf(p)
	if opts.BatchEmbedder != nil {
		batchEmb = opts.BatchEmbedder
	}
	if mb, ok := batchEmb.(MaxBatcher); ok && batchSize <= 0 {
		batchSize = mb.MaxBatch()
	}
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	topK := retrieval.TopKOrDefault(opts.TopK, set.TopK)
	threshold := 0.0
	if set.Threshold != nil {
		threshold = *set.Threshold
	}
	if opts.Threshold != nil {
		threshold = *opts.Threshold
	}
	rep := Report{
		Schema:    Schema,
		Set:       set.Name,
		Source:    set.Source,
		StartedAt: start.UTC().Truncate(time.Millisecond),
		Params:    RunParams{TopK: topK, Threshold: threshold, Concurrency: conc, BatchSize: batchSize},
	}
	if p != nil {
		rep.Backend = BackendInfo{Backend: p.Backend, Collection: p.Collection}
		if p.Embedder != nil {
			rep.Backend.Model = p.Embedder.Name()
		}
		rep.Backend.Ranking = p.Ranking(opts.SearchMode)
	}

	r := &runner{p: p, opts: opts, total: len(set.Cases), results: make([]CaseResult, len(set.Cases)), vector: make([]CaseResult, len(set.Cases)), rerankErr: make([]error, len(set.Cases)),
		errs: make([]error, len(set.Cases)), needsBackend: make([]bool, len(set.Cases)), res: make([]*retrieval.Result, len(set.Cases)),
		vecs: make([][]float32, len(set.Cases)), ann: make([]annCase, len(set.Cases))}
	searchSem := make(chan struct{}, conc)
	embedConc := opts.EmbedConcurrency
	if embedConc <= 0 {
		embedConc = DefaultEmbedConcurrency
	}
	embedSem := make(chan struct{}, embedConc)
	var wg sync.WaitGroup

	type pending struct {
		i int
		q retrieval.Query
	}
	var toEmbed []pending
	for i, c := range set.Cases {
		k := c.TopK
		if k == 0 {
			k = topK
		}
		q := retrieval.Query{
			Question: c.Question, Mode: c.mode(), TopK: k, Threshold: threshold, Filters: c.Filters,
			SelectedText: c.SelectedText, SourceDocPath: c.SourceDocPath, SourceSection: c.SourceSection,
		}
		if q.Mode != retrieval.ModeSelectedText {
			q.Rerank = opts.Rerank
			q.SearchMode = opts.SearchMode
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
		case p == nil || p.Embedder == nil || p.Store == nil:
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

	// The latency sample runs beside the batched run: each sampled case
	// alone through Pipeline.Retrieve (its own embed call and search).
	sampleIdx := make([]int, len(toEmbed))
	queries := make(map[int]retrieval.Query, len(toEmbed))
	for j, pe := range toEmbed {
		sampleIdx[j] = pe.i
		queries[pe.i] = pe.q
	}
	sampled := r.startSample(ctx, pickSample(set, sampleIdx, opts.LatencySample), queries)

	for b := 0; b < len(toEmbed); b += batchSize {
		batch := toEmbed[b:min(b+batchSize, len(toEmbed))]
		wg.Add(1)
		go func() {
			defer wg.Done()
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
			vecs, err := batchEmb.Embed(cctx, texts)
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
		}()
	}
	wg.Wait()
	batchWall := time.Since(start)
	if n := len(set.Cases); n > 0 && batchWall > 0 {
		rep.ThroughputPerSec = float64(n) / batchWall.Seconds()
	}
	rep.LatencySample = r.applySample(set, <-sampled)
	if ctx.Err() == nil {
		r.explainMisses(ctx, set, conc)
	}
	var answerOutage error
	if opts.Generator != nil {
		answerOutage = r.answerAll(ctx, set)
	}

	var judgeErr error
	if opts.Judge != nil {
		rep.Judging, judgeErr = r.judgeAll(ctx, set)
	}

	rep.ANN = r.annReport(set)
	rep.Notes = r.notes
	rep.Params.EmbedCalls = r.embedCalls
	rep.Cases = r.results
	rep.Summary = Summarize(rep.Cases)
	rep.Categories = Categorize(rep.Cases)
	rep.Calibration = Calibrate(CalibrationSamples(rep.Cases))
	Judge(&rep, set.Thresholds.Merge(opts.Thresholds))
	if opts.Rerank.On {
		rep.Rerank = r.rerankReport(p, rep, opts.Rerank)
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

// OutageError is Run's error when the backend failed every case that needed
// it (embedder or store), so the run judged nothing about retrieval quality:
// an outage or a refused key, not a regression. Err is the first case's
// error (in set order), so errors.Is sees retrieval.ErrAuth,
// retrieval.ErrUnavailable, retrieval.ErrNotFound or retrieval.ErrConfig
// through it. The report is still complete, every such case an error.
type OutageError struct {
	// Cases is the number of cases the backend failed.
	Cases int
	Err   error
}

// Error returns the backend's message with how many cases it cost.
func (e *OutageError) Error() string {
	return fmt.Sprintf("the backend failed all %d %s that needed it, so nothing was judged: %v",
		e.Cases, plural(e.Cases, "case", "cases"), e.Err)
}

// Unwrap returns the backend's error.
func (e *OutageError) Unwrap() error { return e.Err }

// outage returns an *OutageError when every case that went to the backend
// errored, and either every error is a backend error or all say the same
// thing; nil otherwise.
func (r *runner) outage() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.backendCases == 0 {
		return nil
	}
	var first error
	same, backend := true, true
	n := 0
	for i, err := range r.errs {
		if !r.needsBackend[i] {
			continue
		}
		if err == nil {
			return nil
		}
		n++
		if first == nil {
			first = err
		} else if err.Error() != first.Error() {
			same = false
		}
		backend = backend && retrieval.IsBackendError(err)
	}
	if n != r.backendCases || (!same && !backend) {
		return nil
	}
	return &OutageError{Cases: n, Err: first}
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

// pickSample chooses the latency sample among the cases idx that go to the
// backend: every case with max_latency_ms, plus n others evenly spaced (0:
// DefaultLatencySample; negative: no sample at all).
func pickSample(set Set, idx []int, n int) []int {
	if n < 0 {
		return nil
	}
	if n == 0 {
		n = DefaultLatencySample
	}
	var rest, pick []int
	for _, i := range idx {
		if set.Cases[i].Expect.MaxLatencyMS > 0 {
			pick = append(pick, i)
		} else {
			rest = append(rest, i)
		}
	}
	if k := min(n-len(pick), len(rest)); k > 0 {
		for j := 0; j < k; j++ {
			pick = append(pick, rest[j*len(rest)/k])
		}
	}
	return pick
}

// sampleRun is one sampled case's single run.
type sampleRun struct {
	i   int
	res retrieval.Result
	err error
}

// startSample runs the cases pick (queries[i] each) one query each, concurrently with each
// other (at most DefaultEmbedConcurrency at once) and with the batched run,
// and delivers their runs on the returned channel.
func (r *runner) startSample(ctx context.Context, pick []int, queries map[int]retrieval.Query) <-chan []sampleRun {
	out := make(chan []sampleRun, 1)
	runs := make([]sampleRun, len(pick))
	l := parallel.New(DefaultEmbedConcurrency)
	for j, i := range pick {
		l.Go(func() {
			cctx, cancel := r.callCtx(ctx)
			res, err := r.p.Retrieve(cctx, queries[i])
			cancel()
			runs[j] = sampleRun{i: i, res: res, err: err}
		})
	}
	go func() {
		l.Wait()
		out <- runs
	}()
	return out
}

// applySample replaces the results of the sampled cases that ran in both
// the batch and alone with the single runs' (identical but for latency)
// and summarises their latency; nil when no case was sampled.
func (r *runner) applySample(set Set, runs []sampleRun) *LatencySample {
	r.mu.Lock()
	defer r.mu.Unlock()
	sample := &LatencySample{Method: SampleMethod, IDs: []string{}}
	var lat []float64
	for _, sr := range runs {
		if sr.err != nil || r.errs[sr.i] != nil {
			continue
		}
		q := r.results[sr.i].Query
		cr := Evaluate(set.Cases[sr.i], q, sr.res)
		cr.Index = sr.i
		cr.Latency.EmbedCallMS = cr.Latency.EmbedMS
		r.results[sr.i] = cr
		r.res[sr.i] = &sr.res
		lat = append(lat, cr.Latency.TotalMS)
		sample.IDs = append(sample.IDs, cr.ID)
	}
	if len(lat) == 0 {
		return nil
	}
	sample.Cases = len(lat)
	sample.P50MS, sample.P95MS = Percentile(lat, 50), Percentile(lat, 95)
	for _, v := range lat {
		sample.MaxMS = max(sample.MaxMS, v)
	}
	return sample
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

// Evaluate scores one case's result: relevance grades, metrics, the
// selected-text and no-answer checks, the latency bound and the status.
func Evaluate(c Case, q retrieval.Query, res retrieval.Result) CaseResult {
	cr := CaseResult{
		ID: c.ID, Question: c.Question, Category: c.Category, Kind: KindOf(c), Mode: c.mode(),
		Query: q, Status: StatusPass, Reasons: []string{}, AnswerCheck: answerCheck(c), Expect: c.Expect,
		Latency: Latency{
			EmbedMS: ms(res.Timings.Embed), SearchMS: ms(res.Timings.Search),
			PostMS: ms(res.Timings.Post), TotalMS: ms(res.Timings.Total),
		},
	}
	k := q.TopK
	kept := res.Hits
	if len(kept) > k {
		kept = kept[:k]
	}
	grades := make([]int, len(kept))
	cr.Hits = make([]HitResult, 0, len(kept)+len(res.Dropped))
	for i, h := range kept {
		grades[i] = Grade(h, c.Expect)
		cr.Hits = append(cr.Hits, hitResult(h, grades[i], false))
	}
	for _, d := range res.Dropped {
		if d.Reason == retrieval.ReasonBelowThreshold {
			cr.Hits = append(cr.Hits, hitResult(d.Hit, Grade(d.Hit, c.Expect), true))
		}
	}
	cr.Labels = caseLabels(kept, grades, c.Expect, cr.Hits)
	if len(kept) > 0 {
		top := kept[0].Score
		cr.TopScore = &top
		var md float64
		for _, h := range cr.Hits[:len(kept)] {
			md += h.Metadata
		}
		md /= float64(len(kept))
		cr.MetadataCompleteness = &md
	}
	var miss, fail []string
	switch cr.Kind {
	case KindRanking:
		cr.HitAt1 = HitAt(grades, 1)
		cr.HitAtK = HitAt(grades, k)
		cr.FirstRelevantRank = FirstRelevantRank(grades, k)
		cr.ReciprocalRank = ReciprocalRank(grades, k)
		cr.NDCG = NDCG(grades, grades, k)
		cr.Arms = armFigures(res.Arms, c.Expect, k)
		cr.KnownItems = c.Expect.knownItems()
		if cr.KnownItems > 0 {
			cr.FoundItems = foundItems(kept, c.Expect)
			cr.Recall = Recall(cr.FoundItems, cr.KnownItems)
		} else {
			cr.Recall = b2f(cr.HitAtK)
		}
		if !cr.HitAtK {
			miss = append(miss, fmt.Sprintf("no relevant hit in the top %d%s", k, topText(kept)))
		}
	case KindNoAnswer:
		limit, what := q.Threshold, "the threshold"
		if c.Expect.MaxScore != nil {
			limit, what = *c.Expect.MaxScore, "max_score"
		}
		// Judged on every top-k score, kept or cut by the run threshold:
		// max_score stands on its own.
		for _, h := range cr.Hits {
			if h.Score >= limit {
				fail = append(fail, fmt.Sprintf("no-answer: %s scored %.3f, reaching %s %.3f", hitResultName(h), h.Score, what, limit))
				break
			}
		}
	case KindSelectedText:
		fail = append(fail, checkSelection(c, res)...)
	}
	if len(c.Expect.Keywords) > 0 {
		var text strings.Builder
		for _, h := range kept {
			text.WriteString(h.Chunk.Text)
			text.WriteByte('\n')
		}
		cov, missing := KeywordCoverage(c.Expect.Keywords, text.String())
		cr.KeywordCoverage = &cov
		cr.MissingKeywords = missing
		if len(missing) > 0 {
			miss = append(miss, "missing keywords: "+strings.Join(missing, ", "))
		}
	}
	if max := c.Expect.MaxLatencyMS; max > 0 && cr.Latency.TotalMS > max {
		fail = append(fail, fmt.Sprintf("latency %.1f ms is above max_latency_ms %g", cr.Latency.TotalMS, max))
	}
	switch {
	case len(fail) > 0:
		cr.Status = StatusFail
	case len(miss) > 0:
		cr.Status = StatusMiss
	}
	cr.Reasons = append(append(cr.Reasons, fail...), miss...)
	return cr
}

// checkSelection: the grounded context must hold the selection and
// nothing retrieved (only the synthetic "selection" hit), under the
// selected-text instruction.
func checkSelection(c Case, res retrieval.Result) []string {
	var fail []string
	if !strings.Contains(res.Grounded.Context, strings.TrimSpace(c.SelectedText)) {
		fail = append(fail, "selected text: the grounded context does not contain the selection")
	}
	for _, h := range res.Hits {
		if h.Chunk.ID != "selection" {
			fail = append(fail, fmt.Sprintf("selected text: retrieved chunk %q is in the context", h.Chunk.ID))
			break
		}
	}
	if len(res.Hits) != 1 || len(res.Dropped) > 0 {
		fail = append(fail, fmt.Sprintf("selected text: want exactly the one selection hit, got %d hits and %d dropped", len(res.Hits), len(res.Dropped)))
	}
	if strings.Contains(res.Grounded.Context, "[Source ") {
		fail = append(fail, "selected text: the context has retrieved [Source N] blocks")
	}
	if res.Grounded.Instruction != retrieval.InstructionSelectedText {
		fail = append(fail, "selected text: the instruction is not the selected-text instruction")
	}
	return fail
}

func hitResult(h retrieval.Hit, grade int, below bool) HitResult {
	hr := HitResult{
		Rank: h.Rank, Score: h.Score, Grade: grade, Relevant: grade > 0,
		ChunkID: h.Chunk.ID, Title: h.Chunk.Title, Section: h.Chunk.Section,
		DocPath: hitDocPath(h), URL: hitURL(h), Module: h.Chunk.Module, Chapter: h.Chunk.Chapter,
		BelowThreshold: below,
	}
	if below {
		hr.Rank = 0
	}
	present := 0
	check := func(name string, ok bool) {
		if ok {
			present++
		} else {
			hr.MissingMetadata = append(hr.MissingMetadata, name)
		}
	}
	check("text", strings.TrimSpace(h.Chunk.Text) != "")
	check("url", hitURL(h) != "")
	check("title", h.Chunk.Title != "")
	check("section", h.Chunk.Section != "")
	check("module/chapter", h.Chunk.Module != "" || h.Chunk.Chapter != "")
	hr.Metadata = float64(present) / 5
	return hr
}

func hitName(h retrieval.Hit) string {
	if p := hitDocPath(h); p != "" {
		return p
	}
	if u := hitURL(h); u != "" {
		return u
	}
	return h.Chunk.ID
}

// Name names the hit in reports: its doc path, else its URL, else its
// chunk id.
func (h HitResult) Name() string {
	switch {
	case h.DocPath != "":
		return h.DocPath
	case h.URL != "":
		return h.URL
	}
	return h.ChunkID
}

func hitResultName(h HitResult) string {
	name := h.Name()
	if h.Rank > 0 {
		return fmt.Sprintf("#%d %s", h.Rank, name)
	}
	return name + " (cut by the threshold)"
}

func topText(kept []retrieval.Hit) string {
	if len(kept) == 0 {
		return " (no hits)"
	}
	return fmt.Sprintf(" (#1 was %s)", hitName(kept[0]))
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// armFigures grades each arm's own ranking of a fused search to k: its
// hit@k and reciprocal rank alone.
func armFigures(arms []retrieval.ArmList, e Expect, k int) []ArmFigures {
	if len(arms) == 0 {
		return nil
	}
	out := make([]ArmFigures, len(arms))
	for i, a := range arms {
		hits := a.Hits
		if len(hits) > k {
			hits = hits[:k]
		}
		grades := make([]int, len(hits))
		for j, sc := range hits {
			h := retrieval.Hit{Rank: j + 1, Score: sc.Score, Chunk: sc.Chunk}
			if j < len(a.Cites) {
				h.Citation = a.Cites[j]
			}
			grades[j] = Grade(h, e)
		}
		out[i] = ArmFigures{Label: a.Label, Vector: a.Vector, HitAtK: b2f(HitAt(grades, k)), MRR: ReciprocalRank(grades, k)}
	}
	return out
}
