package ui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
)

// RerankSetup offers reranking in the explorer: a toggle key,
// settings rows for the model, the candidates and the relevance
// threshold, movement against the vector order and both scores in the
// results, and the rerank latency in the timings. The explorer never
// builds a reranker: Retriever does.
type RerankSetup struct {
	// Models are the rerank models offered, the first the default; none
	// hides reranking.
	Models []string
	// On starts with reranking on (ragscope --rerank MODEL).
	On bool
	// Candidates multiplies top_k to give the chunks searched and
	// reranked (0: retrieval.DefaultRerankCandidates).
	Candidates int
	// Threshold is the minimum relevance a reranked hit needs (0..1).
	Threshold float64
	// Retriever returns the retriever that reranks with model. It is
	// called in a command, off the UI goroutine (opening a reranker may
	// read the whole index), and must be safe for concurrent use.
	Retriever func(ctx context.Context, model string) (Retriever, error)
	// Label describes a model and what it costs, for the header ("rerank
	// cohere rerank-v3.5 (1 call per question)"); nil: "rerank MODEL".
	Label func(model string) string
}

// initRerank applies the rerank setup to the new model: the starting
// settings, the settings rows and the toggle key.
func (m *Model) initRerank() {
	rs := m.opts.Rerank
	m.keys.RerankOff = !m.rerankAvailable()
	if !m.rerankAvailable() {
		return
	}
	m.rerankModel = rs.Models[0]
	m.params.Rerank = retrieval.RerankOptions{On: rs.On, Candidates: rs.Candidates, Threshold: rs.Threshold}
	if m.params.Rerank.Candidates <= 0 {
		m.params.Rerank.Candidates = retrieval.DefaultRerankCandidates
	}
	m.settings.Params.Rerank = m.params.Rerank
	m.settings.RerankModels, m.settings.RerankModel = rs.Models, m.rerankModel
}

// rerankAvailable reports whether reranking can be turned on.
func (m *Model) rerankAvailable() bool {
	return len(m.opts.Rerank.Models) > 0 && m.opts.Rerank.Retriever != nil
}

// rerankFor is the rerank part of a query in mode: the settings for a
// search, none for selected text (there is nothing to rerank).
func (m *Model) rerankFor(mode retrieval.Mode) retrieval.RerankOptions {
	if mode == retrieval.ModeSelectedText || !m.rerankAvailable() || !m.params.Rerank.On {
		return retrieval.RerankOptions{}
	}
	return m.params.Rerank
}

// retrieverFor is who answers q: the rerank model's retriever when q
// reranks, the plain one otherwise.
func (m *Model) retrieverFor(q retrieval.Query) Retriever {
	if !q.Rerank.On {
		return m.opts.Retriever
	}
	return rerankRetriever{open: m.opts.Rerank.Retriever, model: m.rerankModel, base: m.opts.Retriever}
}

// rerankRetriever opens the model's retriever and asks it. A reranker
// that cannot be opened is a failed rerank, not a failed query: the
// answer is the vector result with the error, as when the rerank call
// itself fails.
type rerankRetriever struct {
	open  func(ctx context.Context, model string) (Retriever, error)
	model string
	base  Retriever
}

// Retrieve implements Retriever.
func (r rerankRetriever) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	rr, err := r.open(ctx, r.model)
	if err == nil {
		return rr.Retrieve(ctx, q)
	}
	oerr := fmt.Errorf("open reranker %s: %w", r.model, err)
	q.Rerank = retrieval.RerankOptions{}
	res, err := r.base.Retrieve(ctx, q)
	if err != nil {
		return res, err
	}
	res.Rerank = &retrieval.RerankInfo{Model: r.model, Vector: res.Hits, VectorDropped: res.Dropped,
		FellOut: []retrieval.Hit{}, Err: oerr, Error: oerr.Error()}
	return res, nil
}

// toggleRerank turns reranking on or off and asks the current question
// again: the two turns of one question compare rerank on against off.
func (m *Model) toggleRerank() tea.Cmd {
	if !m.rerankAvailable() {
		m.setStatus(statusErr, "No reranker here: reranking needs the search backend (start with --rerank bm25 or a Cohere rerank model).")
		return nil
	}
	m.params.Rerank.On = !m.params.Rerank.On
	m.settings.Params.Rerank = m.params.Rerank
	what := "Rerank off: " + m.firstStage() + " order."
	if m.params.Rerank.On {
		what = "Rerank on (" + m.rerankLabel() + ")."
	}
	if m.last == nil || m.last.Mode == retrieval.ModeSelectedText {
		m.setStatus(statusInfo, what+" It applies to the next search.")
		return nil
	}
	// A settings change waiting to re-run is this run now.
	m.rerunSeq++
	cmd := m.runQuery(m.withParams(*m.last))
	m.setStatus(statusInfo, what+" Asking the question again; t compares the two turns.")
	return cmd
}

// rerankChanged reports whether new rerank settings change what a query
// returns (nothing does while reranking stays off).
func rerankChanged(a, b retrieval.RerankOptions, modelA, modelB string) bool {
	if !a.On && !b.On {
		return false
	}
	return a != b || modelA != modelB
}

// applyRerankModel takes the model the settings chose ("" keeps it).
func (m *Model) applyRerankModel(model string) {
	if model != "" {
		m.rerankModel = model
	}
	m.settings.RerankModel = m.rerankModel
}

// rerankLabel is the current model as the header shows it.
func (m *Model) rerankLabel() string {
	if f := m.opts.Rerank.Label; f != nil {
		return termsafe.Line(f(m.rerankModel))
	}
	return "rerank " + termsafe.Line(m.rerankModel)
}

// rerankFailure is the status line of a result whose rerank failed (the
// list then shows the store's order); "" otherwise.
func rerankFailure(res retrieval.Result) string {
	if res.Rerank == nil || res.Rerank.Err == nil {
		return ""
	}
	return "Rerank failed, showing the " + present.FirstStage(res.Params.Ranking) + " order: " + res.Rerank.Error
}

// firstStage names the order the next search's reranking reorders: the
// search mode set now on the demo and local indexes, vector otherwise.
func (m *Model) firstStage() string {
	return present.FirstStage(m.searchModeFor(retrieval.ModeNormal))
}

// Settings rows of reranking.
