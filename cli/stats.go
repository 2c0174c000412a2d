package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/present"
	"ragscope/retrieval"
)

// StatsSchema names the version of the stats JSON document.
const StatsSchema = "ragscope.stats/v1"

// StatsJSON is the JSON document of `ragscope stats --json`.
type StatsJSON struct {
	Schema  string          `json:"schema"`
	Backend BackendJSON     `json:"backend"`
	Stats   retrieval.Stats `json:"stats"`
	// Index is what a local or demo index records of how it was made:
	// its embedder (provider, model, dimensions) and chunking.
	Index *app.IndexDescription `json:"index,omitempty"`
	Notes []string              `json:"notes,omitempty"`
	// Version is the build that produced the document.
	Version VersionInfo `json:"version"`
}

func (a *App) newStatsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Describe the collection or index: status, points, vectors, payload fields",
		Long: `Print the backend in use and its collection: status (ready, empty or
not_found), point count, vector size and distance, payload fields present,
indexed fields, the payload mapping detected and the filter values present.

Exit codes: 0 ready or empty, 2 missing config, 3 backend unreachable or the
collection does not exist.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			be, err := a.OpenStore(ctx)
			if err != nil {
				return err
			}
			ctx, cancel := a.withTimeout(ctx)
			defer cancel()
			st, err := be.Pipeline.Store.Stats(ctx)
			if err != nil {
				return err
			}
			// settle the embedder's vector size against
			// the collection's (an OpenAI 3-model takes the collection's size)
			// and report a mismatch as a note rather than failing stats.
			if st.Status != retrieval.StatusNotFound {
				if cerr := be.Check(ctx); cerr != nil && errors.Is(cerr, retrieval.ErrConfig) {
					be.Notes = append(be.Notes, strings.TrimPrefix(cerr.Error(), retrieval.ErrConfig.Error()+": "))
				}
			}
			if a.Cfg.IndexFile == "" && a.Cfg.DocsDir != "" {
				if n := app.LayoutNote(a.Cfg, a.Cfg.DocsDir); n != "" {
					be.Notes = append(be.Notes, "modules: "+n)
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(out, StatsJSON{Schema: StatsSchema, Backend: backendJSON(be), Stats: st, Index: be.Index, Notes: be.Notes, Version: buildVersion()}); err != nil {
					return err
				}
			} else {
				writeStatsText(out, be, st)
			}
			if st.Status == retrieval.StatusNotFound {
				return &ExitError{Code: ExitBackend}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the stats as JSON")
	return cmd
}

func writeStatsText(w io.Writer, be *app.Backend, st retrieval.Stats) {
	fmt.Fprintln(w, header(be))
	fmt.Fprintln(w)
	row := func(k, v string) { fmt.Fprintf(w, "%-16s %s\n", k+":", cleanLine(v)) }
	row("Backend", st.Backend)
	row("Collection", st.Collection)
	row("Status", st.Status)
	if st.Status == retrieval.StatusNotFound {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "The collection %q does not exist. Run your ingestion pipeline first, or set QDRANT_COLLECTION to one of the collections below.\n", cleanLine(st.Collection))
		if len(st.Collections) == 0 {
			fmt.Fprintln(w, "(the server has no collections)")
		}
		for _, c := range st.Collections {
			fmt.Fprintf(w, "  - %s\n", cleanLine(c))
		}
		return
	}
	row("Points", fmt.Sprint(st.Points))
	row("Vector size", fmt.Sprintf("%d (%s)", st.VectorSize, st.Distance))
	if len(st.Vectors) > 1 || (len(st.Vectors) == 1 && st.Vectors[0].Kind == "sparse") {
		for i, v := range st.Vectors {
			if i == 0 {
				row("Vectors", present.Vector(v))
				continue
			}
			fmt.Fprintf(w, "%-16s %s\n", "", cleanLine(present.Vector(v)))
		}
	}
	if st.Search != "" {
		row("Search", st.Search)
	}
	if m := be.EmbedderLabel(); be.Index != nil {
		// What the index records, even when no query embedder is set up.
		row("Embedder", be.Index.Embedder())
		row("Chunking", be.Index.Chunking.String())
	} else if m != "" {
		// Provider, model and the size it makes.
		if d, ok := be.Pipeline.Embedder.(interface{ Dim() int }); ok && d.Dim() > 0 {
			m += fmt.Sprintf(" (%d dimensions)", d.Dim())
		}
		row("Embedder", m)
	}
	row("Payload fields", strings.Join(st.PayloadFields, ", "))
	if len(st.IndexedFields) > 0 {
		row("Indexed fields", strings.Join(st.IndexedFields, ", "))
	}
	if len(st.Mapping) > 0 {
		fmt.Fprintln(w, "Mapping:")
		for _, k := range slices.Sorted(maps.Keys(st.Mapping)) {
			src := cleanLine(st.Mapping[k])
			if src == "" {
				src = "(not found: shown as missing)"
			}
			fmt.Fprintf(w, "  %-14s <- %s\n", k, src)
		}
	}
	if len(st.Facets) > 0 {
		fmt.Fprintln(w, "Filter values:")
		for _, k := range slices.Sorted(maps.Keys(st.Facets)) {
			fmt.Fprintf(w, "  %-14s %s\n", k, cleanLine(facetLine(st.Facets[k], st.FacetCounts[k])))
		}
	}
	writeModuleMap(w, st)
	notes := append(append([]string{}, st.Notes...), be.Notes...)
	for _, n := range notes {
		fmt.Fprintf(w, "Note: %s\n", cleanLine(n))
	}
	if st.Status == retrieval.StatusEmpty {
		fmt.Fprintln(w, "\nThe collection is empty: run your ingestion pipeline first.")
	}
}

// maxFacetValues is how many values of one facet stats prints.
const maxFacetValues = 20

// facetLine lists a facet's values, the most frequent first when counts are
// known (ties in the backend's order), at most maxFacetValues of them and
// then "and N more".
func facetLine(values []string, counts map[string]int64) string {
	values = slices.Clone(values)
	if counts != nil {
		slices.SortStableFunc(values, func(a, b string) int { return cmp.Compare(counts[b], counts[a]) })
	}
	if len(values) <= maxFacetValues {
		return strings.Join(values, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(values[:maxFacetValues], ", "), len(values)-maxFacetValues)
}
