package ui

import (
	"context"
	"fmt"
	"testing"

	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/linkcheck"
)

// The pool checks at most linkWorkers links at once, starts the next as
// one answers, and drops answers for a result no longer on show.
func TestLinkPool(t *testing.T) {
	check := func(_ context.Context, u string) (common.LinkStatus, error) {
		return common.LinkStatus{State: common.LinkOK}, nil
	}
	p := linkcheck.New(t.Context(), 0, check)
	res := func(prefix string, n int) retrieval.Result {
		var r retrieval.Result
		for i := range n {
			r.Hits = append(r.Hits, retrieval.Hit{Citation: retrieval.Citation{URL: fmt.Sprintf("https://x.org/%s%d", prefix, i)}})
		}
		return r
	}
	first := runCmd(t, p.Check(res("a", 6)))
	if len(first) != linkcheck.Workers || len(p.Queue) != 6-linkcheck.Workers {
		t.Fatalf("%d checks started, %d queued", len(first), len(p.Queue))
	}
	url, next := p.Update(first[0].(linkcheck.Msg))
	if url == "" || p.States[url].State != common.LinkOK || next == nil {
		t.Fatalf("answer for %q not recorded or no next check", url)
	}
	stale := first[1].(linkcheck.Msg)
	_ = p.Check(res("b", 2))
	if url, cmd := p.Update(stale); url != "" || cmd != nil {
		t.Fatalf("stale answer for %q applied", url)
	}
	if _, ok := p.States[stale.URL]; ok {
		t.Fatalf("pending state of the old result kept")
	}
}
