package eval

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"ragscope/internal/parallel"
	"ragscope/retrieval"
)

// maxExpectedPerCase bounds the expected sources explained for one missed
// case.
const maxExpectedPerCase = 3

// caseRefs are the expected sources of e: the pages it names (folders,
// which name many, are left out), then its modules and chapters, each
// explained by its best chunk for the question.
func caseRefs(e Expect) []retrieval.ExpectRef {
	var out []retrieval.ExpectRef
	for _, raw := range append(append([]string(nil), e.DocPaths...), e.URLs...) {
		if strings.HasSuffix(raw, "/") && !strings.Contains(raw, "://") {
			continue
		}
		r, err := retrieval.ParseExpectRef(raw)
		if err != nil {
			continue
		}
		out = append(out, r)
	}
	for _, m := range e.Modules {
		out = append(out, retrieval.ModuleRef(m))
	}
	for _, c := range e.Chapters {
		out = append(out, retrieval.ChapterRef(c))
	}
	return out[:min(len(out), maxExpectedPerCase)]
}

// explainMisses says, for each missed ranking case, where its expected
// sources went (retrieval.Pipeline.DiagnoseVector, with the vector the
// batch embedded), and for each filtered case how many points its filter
// leaves (retrieval.Counter, one count per distinct filter). The accounts
// are added to the case's Expected and Reasons, so its MISS row, its JSON
// and the explorer's eval view say them.
func (r *runner) explainMisses(ctx context.Context, set Set, conc int) {
	if r.p == nil || r.p.Store == nil {
		return
	}
	r.countFilters(ctx)
	type job struct {
		i    int
		refs []retrieval.ExpectRef
	}
	var jobs []job
	var all []retrieval.ExpectRef
	for i := range r.results {
		cr := &r.results[i]
		if cr.Status != StatusMiss || cr.Kind != KindRanking || cr.Mode != retrieval.ModeNormal || r.vecs[i] == nil {
			continue
		}
		refs := caseRefs(set.Cases[i].Expect)
		if len(refs) == 0 {
			continue
		}
		jobs = append(jobs, job{i, refs})
		all = append(all, refs...)
	}
	if len(jobs) == 0 {
		return
	}
	// URLs are mapped to pages once for the whole set.
	if resolved, err := r.p.ResolveRefs(ctx, all); err == nil {
		k := 0
		for j := range jobs {
			copy(jobs[j].refs, resolved[k:k+len(jobs[j].refs)])
			k += len(jobs[j].refs)
		}
	}
	l := parallel.New(conc)
	for _, jb := range jobs {
		// A URL no chunk cites may name a folder of pages: say nothing
		// rather than "not in the collection".
		refs := jb.refs[:0:0]
		for _, ref := range jb.refs {
			if ref.URLPath == "" || ref.DocPath != "" {
				refs = append(refs, ref)
			}
		}
		if len(refs) == 0 {
			continue
		}
		l.Go(func() {
			cctx, cancel := r.callCtx(ctx)
			defer cancel()
			q := r.results[jb.i].Query
			_, d, err := r.p.DiagnoseVector(cctx, q, r.vecs[jb.i], 0, refs, false)
			if err != nil {
				return // the account is a help; the case's result stands
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			cr := &r.results[jb.i]
			cr.Expected = d.Expected
			for k := range d.Expected {
				cr.Reasons = append(cr.Reasons, d.Expected[k].Sentence())
			}
		})
	}
	l.Wait()
}

// countFilters sets FilterPoints of every filtered normal-mode case, one
// count per distinct filter; a filter that leaves no point is a reason of
// its case.
func (r *runner) countFilters(ctx context.Context) {
	c, ok := r.p.Store.(retrieval.Counter)
	if !ok {
		return
	}
	byFilter := map[string][]int{}
	filters := map[string]retrieval.Filters{}
	for i := range r.results {
		cr := &r.results[i]
		if cr.Mode != retrieval.ModeNormal || cr.Query.Filters.IsEmpty() || cr.Status == StatusError {
			continue
		}
		key := cr.Query.Filters.String()
		byFilter[key] = append(byFilter[key], i)
		filters[key] = cr.Query.Filters
	}
	keys := make([]string, 0, len(byFilter))
	for k := range byFilter {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cctx, cancel := r.callCtx(ctx)
		n, err := c.Count(cctx, filters[k])
		cancel()
		if err != nil {
			// A server that refuses Count (strict mode, a proxy): the
			// cases keep what else can be shown, and the report says why
			// their filters' point counts are missing.
			r.notes = append(r.notes, fmt.Sprintf("filter point counts not shown: the store refused Count (%v)", err))
			return
		}
		for _, i := range byFilter[k] {
			cr := &r.results[i]
			cr.FilterPoints = &n
			if n == 0 && cr.Status != StatusPass {
				cr.Reasons = append(cr.Reasons, fmt.Sprintf("filter %s leaves 0 points", k))
			}
		}
	}
}
