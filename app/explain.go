package app

import (
	"context"
	"fmt"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/ui"
)

// Explainer is the explainer of b's pipeline for q: the store that
// answers q (the local index's view in q's search mode), the query
// embedder for the leave-one-out attribution, how the store ranks, and
// the model of the collection's vectors for its input limit.
func (b *Backend) Explainer(q retrieval.Query) *explain.Explainer {
	store, err := b.Pipeline.StoreFor(q)
	if err != nil {
		store = b.Pipeline.Store
	}
	x := &explain.Explainer{Store: store, Embedder: b.Pipeline.Embedder, Ranking: b.Pipeline.Ranking(q.SearchMode), Limit: b.InputLimit()}
	if b.Index != nil {
		x.Limit = b.Limits.For(b.Index.Model)
	}
	if x.Embedder == nil {
		x.NoEmbedder = "no query embedder is set up (its key is not set)"
	}
	return x
}

// fusedRecord is the query's record a hit's explanation needs after a
// fused (hybrid) search: its fused score and arms, which depend on the
// other chunks the arms return. The explorer hands over the row's id
// only, so the query runs again on the question's vector from p (no
// other embed call); an expected row carries its own arms, and other
// searches need no record.
func fusedRecord(ctx context.Context, be *Backend, x *explain.Explainer, p *explain.Pending, q retrieval.Query, exp *retrieval.Expected) (*retrieval.Result, error) {
	af, ok := x.Store.(explain.ArmFuser)
	if !ok || exp != nil {
		return &retrieval.Result{}, nil
	}
	vec, err := p.Vector(ctx)
	if method, _ := af.ArmFusion(); method == "" || vec == nil || err != nil {
		return &retrieval.Result{}, err
	}
	res, err := be.Pipeline.RetrieveVector(ctx, q, vec, 0)
	if err != nil {
		return nil, fmt.Errorf("run the query again for its fused scores: %w", err)
	}
	return &res, nil
}

// explorerExplain offers "why this score" (X) and the what-if editor (E)
// in the explorer: the explanation `query --explain` prints and the
// what-if `query --what-if` ranks, on the backend that answered; editor
// is $EDITOR ("" edits in a text area).
func explorerExplain(be *Backend, cr *checkedRetriever, editor string) ui.ExplainSetup {
	if be.Pipeline == nil || be.Pipeline.Store == nil {
		return ui.ExplainSetup{}
	}
	es := ui.ExplainSetup{Editor: editor}
	es.Explain = func(ctx context.Context, q retrieval.Query, id string, exp *retrieval.Expected, top string) (*explain.Explanation, error) {
		if err := cr.checkOnce(ctx); err != nil {
			return nil, err
		}
		x := be.Explainer(q)
		targets := []explain.Target{{ID: id, Expected: exp}}
		if exp != nil {
			targets[0].Rank = exp.Rank
			if top != "" && top != id {
				targets = append(targets, explain.Target{ID: top, Rank: 1})
			}
		}
		p := x.Start(ctx, q.Question)
		res, err := fusedRecord(ctx, be, x, p, q, exp)
		if err != nil {
			return nil, err
		}
		rep, err := x.Explain(ctx, p, q, res, targets)
		if err != nil {
			return nil, err
		}
		if rep.Explained[0] == nil {
			return nil, fmt.Errorf("the chunk %s could not be read", id)
		}
		for _, n := range rep.Notes {
			rep.Explained[0].AttributionNote = n
		}
		return rep.Explained[0], nil
	}
	if pc, ok := be.Pipeline.Store.(retrieval.PageChunker); ok {
		es.Chunk = func(ctx context.Context, id, docPath string) (retrieval.Chunk, error) {
			page, err := pc.PageChunks(ctx, docPath)
			if err != nil {
				return retrieval.Chunk{}, err
			}
			for _, c := range page {
				if c.ID == id {
					return c, nil
				}
			}
			return retrieval.Chunk{}, fmt.Errorf("%s has no chunk %s", docPath, id)
		}
	}
	es.WhatIf = func(ctx context.Context, q retrieval.Query, id string, exp *retrieval.Expected, text string) (explain.WhatIf, error) {
		x := be.Explainer(q)
		x.NoAttribution = true
		p := x.Start(ctx, q.Question)
		if _, err := x.Explain(ctx, p, q, &retrieval.Result{}, []explain.Target{{ID: id, Rank: exp.Rank, Expected: exp}}); err != nil {
			return explain.WhatIf{}, err
		}
		var docs retrieval.Embedder
		if _, own := x.Store.(retrieval.ScoreExplainer); !own && be.DocEmbedder != nil {
			emb, err := be.DocEmbedder(ctx)
			if err != nil {
				return explain.WhatIf{}, err
			}
			docs = emb
		}
		w, err := x.WhatIfs(ctx, p, q, []explain.Edit{{Ref: exp.Ref, Expected: exp, Text: text}}, docs)
		if err != nil {
			return explain.WhatIf{}, err
		}
		return w[0], nil
	}
	return es
}
