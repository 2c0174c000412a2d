package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"ragscope/present"
	"ragscope/retrieval"
)

// writeModuleMap prints the module mapping: each module value (what a
// module filter matches) with its sidebar label when known and its chunk
// count, in value order, so that a layout the facets misread
// (docs/modules/…) shows at a glance.
func writeModuleMap(w io.Writer, st retrieval.Stats) {
	counts := st.FacetCounts["module"]
	if len(counts) == 0 {
		return
	}
	labels := st.FacetLabels["module"]
	fmt.Fprintln(w, "Modules:")
	width := 0
	for v := range counts {
		width = max(width, len(cleanLine(v)))
	}
	for _, v := range slices.Sorted(maps.Keys(counts)) {
		label := "(no label)"
		if l := labels[v]; l != "" {
			label = fmt.Sprintf("%q", cleanLine(l))
		}
		fmt.Fprintf(w, "  %-*s  %5d %-6s  %s\n", width, cleanLine(v), counts[v], present.Plural(int(counts[v]), "chunk", "chunks"), label)
	}
	if n := st.Points - sum(counts); n > 0 && st.Points > 0 {
		fmt.Fprintf(w, "  %-*s  %5d %-6s  (pages outside a module folder)\n", width, "(none)", n, present.Plural(int(n), "chunk", "chunks"))
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
