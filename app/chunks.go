package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"ragscope/config"
	"ragscope/links"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/retrieval/store/qdrant"
)

// fieldWalker is a store that can scroll only the payload fields a
// command needs (Qdrant).
type fieldWalker interface {
	WalkFields(ctx context.Context, fields, required []string, fn func(page []retrieval.Chunk, total int) error) error
}

// auditFields are the chunk fields a chunk audit reads.
var auditFields = []string{qdrant.FieldText, qdrant.FieldURL, qdrant.FieldTitle, qdrant.FieldSection, qdrant.FieldDocPath, qdrant.FieldModule, qdrant.FieldChunkIndex, qdrant.FieldContentHash, qdrant.FieldPageSlug, qdrant.FieldHeadingID}

// WalkChunks lists every chunk of be to fn for an audit: a store that can
// scroll only some payload fields (Qdrant) is asked for the fields an
// audit reads, the text required (IsMissingField tells a store without
// it); another store walks whole chunks.
func WalkChunks(ctx context.Context, be *Backend, fn func(page []retrieval.Chunk, total int) error) error {
	if fw, ok := be.Walker.(fieldWalker); ok {
		return fw.WalkFields(ctx, auditFields, []string{qdrant.FieldText}, fn)
	}
	return be.Walker.Walk(ctx, fn)
}

// IsMissingField reports whether err is a store's answer that a required
// payload field is missing (a configuration error: the payload mapping).
func IsMissingField(err error) bool {
	var mf *qdrant.MissingFieldError
	return errors.As(err, &mf)
}

// AuditSite is the site of be (AppSite) as the chunk audit's pages, with
// a locator that places a chunk by its citation URL as queries build it
// (or, failing that, by its doc path); nil without a site.
func AuditSite(be *Backend) (*chunkaudit.Site, error) {
	site, _, err := Site(be)
	if err != nil {
		return nil, fmt.Errorf("load site: %w", err)
	}
	if site == nil {
		return nil, nil
	}
	return auditSite(site, be.Pipeline.URLs), nil
}

func auditSite(site *links.Site, urls retrieval.URLBuilder) *chunkaudit.Site {
	s := &chunkaudit.Site{}
	for _, p := range site.Pages {
		if p.Draft || p.Generated || site.PageByRoute(p.Route) != p {
			continue
		}
		sp := chunkaudit.SitePage{Route: p.Route, Source: p.Source, Title: p.Title}
		for _, h := range p.Headings {
			sp.Headings = append(sp.Headings, chunkaudit.SiteHeading{ID: h.ID, Text: h.Text, Level: h.Level, Citable: h.Level >= 2 && !h.NoAnchor && h.OwnText})
		}
		s.Pages = append(s.Pages, sp)
	}
	s.Locate = func(c *retrieval.Chunk) (string, string) {
		cit := urls.Cite(c)
		if u, err := url.Parse(cit.URL); err == nil {
			if p := site.PageByRoute(u.Path); p != nil {
				return p.Route, u.Fragment
			}
		}
		if c.DocPath != "" {
			if p := site.PageBySource(c.DocPath); p != nil {
				return p.Route, c.HeadingID
			}
		}
		return "", ""
	}
	return s
}

// AuditChunks reads every chunk of be (WalkChunks) into a chunk audit
// with opts and returns its report; progress, when not nil, hears the
// chunks read so far and the total (0 when unknown) after each batch.
// An interrupted walk returns the context's error and no report.
func AuditChunks(ctx context.Context, be *Backend, opts chunkaudit.Options, progress func(read, total int)) (*chunkaudit.Report, error) {
	if be.Walker == nil {
		return nil, fmt.Errorf("the %s backend cannot list its chunks, so they cannot be audited", be.Kind)
	}
	// The demo and local indexes were cut by ragscope's chunker.
	opts.OwnChunker = be.Kind != config.BackendQdrant
	return audit(ctx, func(ctx context.Context, fn func([]retrieval.Chunk, int) error) error { return WalkChunks(ctx, be, fn) }, opts, progress)
}

// AuditIndex reads every chunk of ix, an index ragscope's chunker just
// cut, into a chunk audit with opts and returns its report, as
// AuditChunks does for a backend.
func AuditIndex(ctx context.Context, ix retrieval.Walker, opts chunkaudit.Options) (*chunkaudit.Report, error) {
	opts.OwnChunker = true
	return audit(ctx, ix.Walk, opts, nil)
}

// audit adds every chunk walk lists to a chunk audit with opts, telling
// progress (when not nil) after each batch, and returns its report; an
// interrupted walk returns the context's error and no report.
func audit(ctx context.Context, walk func(context.Context, func([]retrieval.Chunk, int) error) error, opts chunkaudit.Options, progress func(read, total int)) (*chunkaudit.Report, error) {
	aud := chunkaudit.New(opts)
	err := walk(ctx, func(page []retrieval.Chunk, total int) error {
		for i := range page {
			aud.Add(&page[i])
		}
		if progress != nil {
			progress(aud.Chunks(), total)
		}
		return ctx.Err()
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	return aud.Report(), nil
}

// ExplorerAudit is the explorer's Chunks view audit of be: the whole
// collection against the configured embedding model's input limit, and
// the site's coverage when there is a site.
func ExplorerAudit(be *Backend) func(ctx context.Context, progress func(read, total int)) (*chunkaudit.Report, error) {
	return func(ctx context.Context, progress func(read, total int)) (*chunkaudit.Report, error) {
		opts := chunkaudit.Options{Limit: be.InputLimit()}
		site, err := AuditSite(be)
		if err != nil {
			return nil, err
		}
		opts.Site = site
		return AuditChunks(ctx, be, opts, progress)
	}
}
