package common

import (
	"slices"

	"ragscope/retrieval"
)

// CloneFilters is a deep copy of f: the settings edit their own, and a
// query or a saved case keeps its own.
func CloneFilters(f retrieval.Filters) retrieval.Filters {
	return retrieval.Filters{
		Modules: slices.Clone(f.Modules), Chapters: slices.Clone(f.Chapters),
		ContentTypes: slices.Clone(f.ContentTypes), Tags: slices.Clone(f.Tags),
	}
}
