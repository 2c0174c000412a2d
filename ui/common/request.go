package common

import (
	"context"
)

// Request is the one backend request a view waits for at a time (a
// page's chunks, the chunk audit, B's retrieval in the split view): its
// reply carries the request's number, and a reply to an older request
// is dropped.
type Request struct {
	Seq     int
	Cancel  context.CancelFunc
	Loading bool
}

// Next cancels the request in flight and numbers the next one, loading
// from now; whoever starts it sets its cancel.
func (r *Request) Next() int {
	r.Abort()
	r.Seq++
	r.Loading = true
	return r.Seq
}

// Abort cancels the request in flight, if any; whether the view still
// waits for its reply (loading) is the view's to say.
func (r *Request) Abort() {
	if r.Cancel != nil {
		r.Cancel()
		r.Cancel = nil
	}
}

// Settle reports whether seq answers the request in flight, which is
// then over.
func (r *Request) Settle(seq int) bool {
	if seq != r.Seq || !r.Loading {
		return false
	}
	r.Loading, r.Cancel = false, nil
	return true
}
