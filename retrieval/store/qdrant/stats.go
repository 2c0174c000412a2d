package qdrant

import (
	"context"
	"fmt"
	"sort"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
)

// detection samples the collection once to learn which payload keys it uses.
func (s *Store) detection(ctx context.Context) (*Detection, error) {
	return cached(s, &s.detected, func() (*Detection, error) {
		payloads, _, err := s.sample(ctx, sampleSize)
		if err != nil {
			return nil, err
		}
		det := s.mapping.Detect(payloads)
		return &det, nil
	})
}

// sample scrolls up to n points' payloads.
func (s *Store) sample(ctx context.Context, n int) ([]map[string]*qc.Value, int, error) {
	var out []map[string]*qc.Value
	var offset *qc.PointId
	for len(out) < n {
		page := min(n-len(out), 250)
		pts, next, err := s.scrollPage(ctx, nil, offset, page)
		if err != nil {
			return nil, 0, s.withCollections(ctx, err)
		}
		for _, p := range pts {
			out = append(out, p.GetPayload())
		}
		if next == nil || len(pts) == 0 {
			break
		}
		offset = next
	}
	return out, len(out), nil
}

// Stats describes the collection. A missing collection is not an error:
// Status is StatusNotFound, Collections lists what exists and Notes say to
// run the ingestion first. Connection and auth failures are errors.
func (s *Store) Stats(ctx context.Context) (retrieval.Stats, error) {
	st := retrieval.Stats{Backend: "qdrant", Collection: s.collection, Notes: s.Notes()}
	info, err := s.collectionInfo(ctx)
	if e, ok := err.(*Error); ok && e.Kind == KindNotFound {
		names, lerr := s.listCollections(ctx)
		if lerr != nil {
			return st, lerr
		}
		st.Status = retrieval.StatusNotFound
		st.Collections = names
		st.Notes = append(st.Notes, fmt.Sprintf("collection %q does not exist: run your ingestion first, or set QDRANT_COLLECTION to one of: %s", s.collection, listOrNone(names)))
		return st, nil
	}
	if err != nil {
		return st, err
	}
	sh, err := s.shapeOf(info)
	if err != nil {
		return st, err
	}
	keep(s, &s.info, sh)
	st.VectorSize, st.Distance = sh.vectorSize, sh.distance
	st.Vectors = vectorInfos(info, sh)
	if sh.planErr != nil {
		st.Notes = append(st.Notes, sh.planErr.Error())
	} else {
		st.Search = sh.plan.Describe("")
	}
	if len(sh.named) > 1 && !sh.plan.Hybrid() {
		st.Notes = append(st.Notes, fmt.Sprintf("named vectors %s: searching %q", strings.Join(sh.named, ", "), sh.vectorName))
	}
	if pc := info.PointsCount; pc != nil {
		st.Points = int64(*pc)
	} else {
		n, err := s.count(ctx)
		if err != nil {
			return st, err
		}
		st.Points = n
	}
	for k, v := range info.GetPayloadSchema() {
		st.IndexedFields = append(st.IndexedFields, k+" ("+strings.ToLower(v.GetDataType().String())+")")
	}
	sort.Strings(st.IndexedFields)
	if st.Points == 0 {
		st.Status = retrieval.StatusEmpty
		st.Notes = append(st.Notes, "the collection is empty: run your ingestion first")
		return st, nil
	}
	st.Status = retrieval.StatusReady

	payloads, n, err := s.sample(ctx, facetSample)
	if err != nil {
		return st, err
	}
	det := s.mapping.Detect(payloads)
	keep(s, &s.detected, &det)
	st.PayloadFields = det.PayloadKeys
	st.Mapping = det.Fields
	st.Facets = s.facets(payloads)
	if int64(n) < st.Points {
		st.Notes = append(st.Notes, fmt.Sprintf("mapping and facets from a sample of %d of %d points", n, st.Points))
	}
	if miss := det.Missing(); len(miss) > 0 {
		st.Notes = append(st.Notes, "no payload key found for: "+strings.Join(miss, ", ")+" (shown as missing; override in [mapping] of ragscope.toml)")
	}
	return st, nil
}

func (s *Store) count(ctx context.Context) (int64, error) {
	n, err := fetch(ctx, s, "count", func(ctx context.Context) (uint64, error) {
		return s.client.Count(ctx, &qc.CountPoints{CollectionName: s.collection, Exact: qc.PtrOf(true)})
	})
	return int64(n), err
}

// facets lists the distinct module, chapter, content_type and tag values
// in the payloads.
func (s *Store) facets(payloads []map[string]*qc.Value) map[string][]string {
	sets := map[string]map[string]bool{"module": {}, "chapter": {}, "content_type": {}, "tag": {}}
	add := func(k, v string) {
		if v != "" && len(sets[k]) < facetMax {
			sets[k][v] = true
		}
	}
	for _, p := range payloads {
		c := s.mapping.Decode("", p)
		add("module", c.Module)
		add("chapter", c.Chapter)
		add("content_type", c.ContentType)
		for _, t := range c.Tags {
			add("tag", t)
		}
	}
	out := map[string][]string{}
	for k, set := range sets {
		if len(set) == 0 {
			continue
		}
		vals := make([]string, 0, len(set))
		for v := range set {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		out[k] = vals
	}
	return out
}
