package eval

import (
	"context"

	"ragscope/internal/parallel"
	"ragscope/retrieval"
)

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
