package eval

import (
	"fmt"

	"ragscope/retrieval"
)

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
