package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/eval"
	"ragscope/retrieval/local/demo"
	"ragscope/ui"
)

// demoSetLabel names the embedded demo set in the TUI.
const demoSetLabel = "demo golden set"

// tuiEval returns the TUI's eval runner over be, and the label of the set
// an empty path runs ("" when a path is needed: the embedded set is for
// the demo textbook only). The runner loads the set (a path relative to
// the working directory, ~ for the home directory), checks the backend
// once like a first query does, and runs the set with the explorer's
// settings (search mode, top_k, threshold, rerank model); each call is
// independent, so the TUI may start a new run while an old one winds down.
func (a *App) tuiEval(be *Backend) (ui.EvalFunc, string) {
	var (
		isDemo  = a.Cfg.Resolved() == config.BackendDemo
		dir     = a.Dir
		timeout = a.Cfg.Timeout
		cfgErr  = a.Cfg.Validate()
	)
	label := ""
	if isDemo {
		label = demoSetLabel
	}
	rerankers := &evalRerankers{a: a, be: be, open: map[string]retrieval.Reranker{}}
	run := func(ctx context.Context, path string, s ui.EvalSettings, progress func(done, total int), onCase func(eval.CaseResult)) (eval.Report, error) {
		set, err := tuiEvalSet(path, dir, isDemo)
		if err != nil {
			return eval.Report{}, err
		}
		if needsSearch(set) {
			if be.Pipeline.Embedder == nil || be.Pipeline.Store == nil {
				if cfgErr != nil {
					return eval.Report{}, cfgErr
				}
				return eval.Report{}, eval.ErrNoEmbedder
			}
			if err := be.Check(ctx); err != nil {
				return eval.Report{}, err
			}
		}
		// The explorer's settings: its search mode, top_k (a case's own
		// wins), threshold and rerank model.
		th := s.Threshold
		opts := eval.Options{CallTimeout: timeout, SearchMode: s.SearchMode, TopK: s.TopK, Threshold: &th, Progress: progress, OnCase: onCase}
		p := be.Pipeline
		if s.Rerank.On && needsSearch(set) {
			rr, err := rerankers.get(ctx, s.RerankModel)
			if err != nil {
				return eval.Report{}, fmt.Errorf("open reranker %s: %w", s.RerankModel, err)
			}
			cp := *p
			cp.Reranker = rr
			p, opts.Rerank = &cp, s.Rerank
		}
		return eval.Run(ctx, p, set, opts)
	}
	return run, label
}

// evalRerankers opens each rerank model the explorer's eval runs use once,
// as query --rerank builds it.
type evalRerankers struct {
	a  *App
	be *Backend
	// mu guards open; it is held while a reranker is built.
	mu   sync.Mutex
	open map[string]retrieval.Reranker
}

func (r *evalRerankers) get(ctx context.Context, model string) (retrieval.Reranker, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rr, ok := r.open[model]; ok {
		return rr, nil
	}
	if p := r.be.Pipeline; p.Reranker != nil && rerankModelName(r.a.Cfg.RerankModel) == model {
		r.open[model] = p.Reranker
		return p.Reranker, nil
	}
	rr, err := r.a.newReranker(ctx, r.be, model)
	if err != nil {
		return nil, err
	}
	r.open[model] = rr
	return rr, nil
}

// tuiEvalSet loads the set at path, or the embedded demo set when path is
// empty and the backend is the demo.
func tuiEvalSet(path, dir string, isDemo bool) (eval.Set, error) {
	if path == "" {
		if !isDemo {
			return eval.Set{}, errors.New("type the path of a golden set (JSON or YAML): the built-in set is for the demo textbook only")
		}
		set, err := eval.Parse(demo.GoldenSet(), demo.GoldenSetName)
		if err != nil {
			return eval.Set{}, fmt.Errorf("embedded demo set: %w", err)
		}
		set.Source = "embedded demo set"
		return set, nil
	}
	full := path
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			full = filepath.Join(home, rest)
		}
	} else if !filepath.IsAbs(path) && dir != "" {
		full = filepath.Join(dir, path)
	}
	set, err := eval.LoadFile(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// The wrapped "open …: no such file" adds nothing a person needs.
		return eval.Set{}, fmt.Errorf("golden set %s does not exist: check the path (relative to %s)", path, dir)
	case err != nil:
		return eval.Set{}, err
	}
	set.Source = path
	return set, nil
}

// needsSearch reports whether any case of set runs a vector search.
func needsSearch(set eval.Set) bool {
	for _, c := range set.Cases {
		if eval.KindOf(c) != eval.KindSelectedText {
			return true
		}
	}
	return false
}
