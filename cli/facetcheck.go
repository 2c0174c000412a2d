package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"ragscope/app"
	"ragscope/internal/editdist"
	"ragscope/retrieval"
)

// checkFilterValues is called when a filtered query found nothing: a
// --module or --chapter value that names no module or chapter of the
// collection is a configuration error (exit 2, as an --expect REF that
// matches nothing) listing the ones it has, closest first,
// never a silent "No results". The values come from the collection's
// stats (a local index knows them all; Qdrant's are read from its points,
// up to a sample of 1,000, which the message then says). It returns nil when every value is
// known or the collection cannot say.
func checkFilterValues(ctx context.Context, be *app.Backend, f retrieval.Filters) error {
	if len(f.Modules)+len(f.Chapters) == 0 || be == nil || be.Pipeline == nil || be.Pipeline.Store == nil {
		return nil
	}
	st, err := be.Pipeline.Store.Stats(ctx)
	if err != nil || len(st.Facets) == 0 {
		return nil
	}
	for _, c := range []struct {
		flag, field string
		values      []string
	}{{"--module", "module", f.Modules}, {"--chapter", "chapter", f.Chapters}} {
		known := st.Facets[c.field]
		for _, v := range c.values {
			if slices.Contains(known, v) {
				continue
			}
			from := ""
			for _, n := range st.Notes {
				if strings.Contains(n, "facets from a sample") {
					from = " (of a sample of its points)"
				}
			}
			if len(known) == 0 {
				return &ExitError{Code: ExitConfig, Err: fmt.Errorf("%s %q: this collection's chunks have no %s%s", c.flag, cleanLine(v), c.field, from)}
			}
			return &ExitError{Code: ExitConfig, Err: fmt.Errorf("%s %q: no such %s in this collection; its %ss%s: %s", c.flag, cleanLine(v), c.field, c.field, from, strings.Join(closestFirst(v, known, 12), ", "))}
		}
	}
	return nil
}

// closestFirst is known ordered by edit distance to v (a value that
// contains v, or that v contains, first), at most n of them, sanitised;
// "… and N more" ends a longer list.
func closestFirst(v string, known []string, n int) []string {
	lv := strings.ToLower(v)
	dist := func(k string) int {
		lk := strings.ToLower(k)
		if lv != "" && (strings.Contains(lk, lv) || strings.Contains(lv, lk)) {
			return -1
		}
		return editdist.Levenshtein(lv, lk)
	}
	sorted := slices.Clone(known)
	slices.SortStableFunc(sorted, func(a, b string) int { return dist(a) - dist(b) })
	out := make([]string, 0, min(len(sorted), n+1))
	for i, k := range sorted {
		if i == n {
			out = append(out, fmt.Sprintf("… and %d more", len(sorted)-n))
			break
		}
		out = append(out, cleanLine(k))
	}
	return out
}
