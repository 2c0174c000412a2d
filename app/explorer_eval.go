package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"ragscope/config"
	"ragscope/internal/platform"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/ui"
)

// explorerEval returns the explorer's eval runner over be, and the label
// of the set an empty path runs ("" when a path is needed: the embedded
// set is for the demo textbook only). The runner loads the set (a path
// relative to the working directory, ~ for the home directory), checks
// the backend once like a first query does, and runs the set with the
// explorer's settings (search mode, top_k, threshold, rerank model); each
// call is independent, so the explorer may start a new run while an old
// one winds down.
func (as *Assembler) explorerEval(be *Backend) (ui.EvalFunc, string) {
	var (
		s       = be.Setup
		dir     = as.Dir
		timeout = s.Settings.Timeout
		cfgErr  = as.providers().Validate(s.Config())
	)
	label := ""
	if s.Backend == config.BackendDemo {
		label = DemoSetLabel
	}
	rerankers := &evalRerankers{as: as, be: be, open: map[string]retrieval.Reranker{}}
	run := func(ctx context.Context, path string, st ui.EvalSettings, progress func(done, total int), onCase func(eval.CaseResult)) (eval.Report, error) {
		set, err := explorerEvalSet(path, dir, s.Backend)
		if err != nil {
			return eval.Report{}, err
		}
		if NeedsSearch(set) {
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
		th := st.Threshold
		opts := eval.Options{CallTimeout: timeout, SearchMode: st.SearchMode, TopK: st.TopK, Threshold: &th, Progress: progress, OnCase: onCase}
		p := be.Pipeline
		if st.Rerank.On && NeedsSearch(set) {
			rr, err := rerankers.get(ctx, st.RerankModel)
			if err != nil {
				return eval.Report{}, fmt.Errorf("open reranker %s: %w", st.RerankModel, err)
			}
			cp := *p
			cp.Reranker = rr
			p, opts.Rerank = &cp, st.Rerank
		}
		return eval.Run(ctx, p, set, opts)
	}
	return run, label
}

// evalRerankers opens each rerank model the explorer's eval runs use once,
// as query --rerank builds it.
type evalRerankers struct {
	as *Assembler
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
	if p := r.be.Pipeline; p.Reranker != nil && rerankModelName(r.be.Setup.RerankModel) == model {
		r.open[model] = p.Reranker
		return p.Reranker, nil
	}
	rr, err := r.as.Reranker(ctx, r.be, model)
	if err != nil {
		return nil, err
	}
	r.open[model] = rr
	return rr, nil
}

// explorerEvalSet loads the set at path as the explorer names it
// (relative to dir, ~ for the home directory), or the embedded demo set
// when path is empty and the backend is the demo.
func explorerEvalSet(path, dir string, backend config.Backend) (eval.Set, error) {
	full := platform.ExpandHome(path)
	if path != "" && !strings.HasPrefix(path, "~/") && !filepath.IsAbs(path) && dir != "" {
		full = filepath.Join(dir, path)
	}
	set, err := LoadGoldenSet(full, backend)
	switch {
	case errors.Is(err, ErrNoDemoSet):
		return eval.Set{}, errors.New("type the path of a golden set (JSON or YAML): the built-in set is for the demo textbook only")
	case errors.Is(err, fs.ErrNotExist):
		// The wrapped "open …: no such file" adds nothing a person needs.
		return eval.Set{}, fmt.Errorf("golden set %s does not exist: check the path (relative to %s)", path, dir)
	case err != nil:
		return eval.Set{}, err
	}
	if path != "" {
		set.Source = path
	}
	return set, nil
}
