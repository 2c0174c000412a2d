package netx

import (
	"context"
	"time"
)

// Retry is the retry loop every ragscope client runs around its calls: it
// makes attempt 1, 2, … with try until one ends the retries. try makes
// attempt n and reports whether its failure may be retried (false for a
// success or a failure for good) and the wait its answer asked (0: none);
// after a retryable failure, Next decides the Step, and Retry waits it
// with sleep (Sleep when nil) before the next attempt.
//
// It returns the attempts made, the Step that ended the retries (zero
// when the last attempt was not retryable; its Asked set when a
// Retry-After past the time left ended them), and sleep's error when ctx
// ended during a wait. What the last attempt gave is the caller's: try
// keeps it.
func (p Policy) Retry(ctx context.Context, sleep func(context.Context, time.Duration) error, try func(n int) (retryable bool, asked time.Duration)) (attempts int, stop Step, err error) {
	if sleep == nil {
		sleep = Sleep
	}
	for n := 1; ; n++ {
		retryable, asked := try(n)
		if !retryable {
			return n, Step{}, nil
		}
		step := p.Next(ctx, n, asked)
		if !step.Retry {
			return n, step, nil
		}
		if err := sleep(ctx, step.Wait); err != nil {
			return n, Step{}, err
		}
	}
}
