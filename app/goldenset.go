package app

import (
	"errors"
	"fmt"

	"ragscope/config"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/store/local/demo"
)

// DemoSetLabel names the embedded demo set in the explorer.
const DemoSetLabel = "demo golden set"

// ErrNoDemoSet is LoadGoldenSet's error for an empty path on a backend
// other than the demo: the embedded set is for the demo textbook only.
var ErrNoDemoSet = errors.New("the built-in golden set is for the demo textbook only")

// LoadGoldenSet loads the golden set at path (JSON or YAML), or, when path
// is empty and the backend is the demo, the embedded demo set. A missing
// file's error matches fs.ErrNotExist; an empty path elsewhere
// ErrNoDemoSet. The command line and the explorer phrase these their own
// way.
func LoadGoldenSet(path string, backend config.Backend) (eval.Set, error) {
	if path == "" {
		if backend != config.BackendDemo {
			return eval.Set{}, ErrNoDemoSet
		}
		set, err := eval.Parse(demo.GoldenSet(), demo.GoldenSetName)
		if err != nil {
			return eval.Set{}, fmt.Errorf("embedded demo set: %w", err)
		}
		set.Source = "embedded demo set"
		return set, nil
	}
	return eval.LoadFile(path)
}

// NeedsSearch reports whether any case of set runs a search (not
// selected text only).
func NeedsSearch(set eval.Set) bool {
	for _, c := range set.Cases {
		if eval.KindOf(c) != eval.KindSelectedText {
			return true
		}
	}
	return false
}
