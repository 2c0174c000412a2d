package ui

import "context"

// request is the one backend request a view waits for at a time (a
// page's chunks, the chunk audit, B's retrieval in the split view): its
// reply carries the request's number, and a reply to an older request
// is dropped.
type request struct {
	seq     int
	cancel  context.CancelFunc
	loading bool
}

// next cancels the request in flight and numbers the next one, loading
// from now; whoever starts it sets its cancel.
func (r *request) next() int {
	r.abort()
	r.seq++
	r.loading = true
	return r.seq
}

// abort cancels the request in flight, if any; whether the view still
// waits for its reply (loading) is the view's to say.
func (r *request) abort() {
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
}

// settle reports whether seq answers the request in flight, which is
// then over.
func (r *request) settle(seq int) bool {
	if seq != r.seq || !r.loading {
		return false
	}
	r.loading, r.cancel = false, nil
	return true
}
