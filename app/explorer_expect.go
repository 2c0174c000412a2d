package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"

	"ragscope/retrieval"
	"ragscope/retrieval/store/qdrant"
	"ragscope/ui"
)

// sourceFields are the chunk fields the expected-source picker reads.
var sourceFields = []string{qdrant.FieldURL, qdrant.FieldTitle, qdrant.FieldSection, qdrant.FieldDocPath, qdrant.FieldPageSlug, qdrant.FieldHeadingID}

// explorerExpect offers "Why not this chunk?" in the explorer:
// the picker lists the collection's pages and sections (a walk of the
// store, only the payload fields it needs on Qdrant), and the diagnosis
// is the one `query --expect --ann-check` prints (Pipeline.Diagnose), on
// the pipeline that answered the question (the rerank model's copy when
// it reranks), after the backend's check. The ANN check is offered on an
// approximate store (Qdrant).
func explorerExpect(be *Backend, cr *checkedRetriever, rerank ui.RerankSetup) ui.ExpectSetup {
	if be.Pipeline == nil || be.Pipeline.Store == nil {
		return ui.ExpectSetup{}
	}
	es := ui.ExpectSetup{ANN: be.Kind == "qdrant"}
	es.Diagnose = func(ctx context.Context, q retrieval.Query, model string, refs []retrieval.ExpectRef, ann bool) (retrieval.Diagnosis, error) {
		if err := cr.checkOnce(ctx); err != nil {
			return retrieval.Diagnosis{}, err
		}
		p := be.Pipeline
		if q.Rerank.On && model != "" && rerank.Retriever != nil {
			r, err := rerank.Retriever(ctx, model)
			if err != nil {
				return retrieval.Diagnosis{}, err
			}
			if pr, ok := r.(pipelineRetriever); ok {
				p = pr.p
			}
		}
		_, d, err := p.Diagnose(ctx, q, refs, ann)
		return d, err
	}
	w := be.Walker
	if w == nil {
		w, _ = be.Pipeline.Store.(retrieval.Walker)
	}
	if w != nil {
		es.Sources = func(ctx context.Context) ([]ui.DocSource, error) {
			return docSources(ctx, w, be.Pipeline.URLs, maxDocSources)
		}
	}
	return es
}

// maxDocSources bounds the picker's list (pages and sections): past it the
// walk stops and the list holds what it read (a doc path or URL can still
// be typed).
const maxDocSources = 100_000

// errEnough stops a walk that has read its limit of entries.
var errEnough = errors.New("enough doc sources")

// docSources lists the pages of the store, each followed by its sections
// (by the anchor of their citation, else their heading id), sorted by
// doc path; at most limit entries.
func docSources(ctx context.Context, w retrieval.Walker, urls retrieval.URLBuilder, limit int) ([]ui.DocSource, error) {
	type page struct {
		sections []ui.DocSource
		seen     map[string]bool
	}
	pages := map[string]*page{}
	entries := 0
	fn := func(chunks []retrieval.Chunk, _ int) error {
		for i := range chunks {
			c := &chunks[i]
			if c.DocPath == "" {
				continue
			}
			if entries >= limit {
				return errEnough
			}
			pg := pages[c.DocPath]
			if pg == nil {
				pg = &page{seen: map[string]bool{}}
				pages[c.DocPath] = pg
				entries++
			}
			anchor := c.HeadingID
			if u, err := url.Parse(urls.Cite(c).URL); err == nil && u.Fragment != "" {
				anchor = u.Fragment
			}
			if anchor == "" || pg.seen[anchor] {
				continue
			}
			pg.seen[anchor] = true
			entries++
			label := c.DocPath + " · " + c.Section
			if c.Section == "" {
				label = c.DocPath + "#" + anchor
			}
			pg.sections = append(pg.sections, ui.DocSource{Ref: c.DocPath + "#" + anchor, Label: label})
		}
		return nil
	}
	var err error
	if fw, ok := w.(fieldWalker); ok {
		err = fw.WalkFields(ctx, sourceFields, []string{qdrant.FieldDocPath}, fn)
	} else {
		err = w.Walk(ctx, fn)
	}
	if err != nil && !errors.Is(err, errEnough) {
		return nil, fmt.Errorf("list the pages: %w", err)
	}
	paths := make([]string, 0, len(pages))
	for p := range pages {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []ui.DocSource
	for _, p := range paths {
		out = append(out, ui.DocSource{Ref: p})
		secs := pages[p].sections
		sort.SliceStable(secs, func(i, j int) bool { return secs[i].Label < secs[j].Label })
		out = append(out, secs...)
	}
	return out, nil
}
