package golden

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkGenerate100At300ms is the budget: 100 questions (50 sections)
// with every chat call taking 300 ms and 8 sections at a time must take
// at most 1.3 × (100 × 2 passes / 8 × 0.3 s) = 9.75 s, and a re-run on
// the unchanged book makes no call. It reports the seconds of the first
// run and the calls of both.
func BenchmarkGenerate100At300ms(b *testing.B) {
	t := &testing.T{}
	srv := bookServer(t)
	defer srv.Close()
	srv.SetLatency(300 * time.Millisecond)
	secs := make([]Section, 50)
	for i := range secs {
		secs[i] = sec(fmt.Sprintf("p%02d", i), fmt.Sprintf("h%d", i), fmt.Sprintf("part%d", i))
	}
	for b.Loop() {
		dir := filepath.Join(b.TempDir(), "cache")
		start := time.Now()
		res, err := newGen(t, srv, dir, DefaultConcurrency).Run(context.Background(), secs, nil)
		took := time.Since(start)
		if err != nil || len(res.Questions) != 100 {
			b.Fatalf("err %v, %d questions, dropped %v", err, len(res.Questions), res.Dropped)
		}
		again, err := newGen(t, srv, dir, DefaultConcurrency).Run(context.Background(), secs, nil)
		if err != nil || again.Calls != 0 {
			b.Fatalf("re-run: %d calls, %v", again.Calls, err)
		}
		b.ReportMetric(took.Seconds(), "s/100-questions")
		b.ReportMetric(float64(res.Calls), "calls")
		b.ReportMetric(float64(again.Calls), "rerun-calls")
		if budget := 1.3 * 100 * 2 / 8 * 0.3; took.Seconds() > budget {
			b.Errorf("%.2f s, over the %.2f s budget", took.Seconds(), budget)
		}
	}
}
