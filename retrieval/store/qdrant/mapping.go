package qdrant

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
)

// Chunk fields a Mapping can feed, as named in ragscope.toml and in Stats.
const (
	FieldText        = "text"
	FieldURL         = "url"
	FieldTitle       = "title"
	FieldSection     = "section"
	FieldDocPath     = "doc_path"
	FieldModule      = "module"
	FieldChapter     = "chapter"
	FieldChunkIndex  = "chunk_index"
	FieldTotalChunks = "total_chunks"
	FieldContentHash = "content_hash"
	FieldTags        = "tags"
	FieldContentType = "content_type"
	FieldPageSlug    = "page_slug"
	FieldHeadingID   = "heading_id"
)

// Mapping lists, for each chunk field, the payload keys that may hold it,
// in order of preference. A key may be a dotted path ("metadata.url"); a
// plain key is also looked for one level down in nested objects
// ("metadata.content_hash"). Empty fields fall back to DefaultMapping (see
// WithDefaults). The toml tags match the [mapping] table of ragscope.toml.
type Mapping struct {
	Text        []string `toml:"text" json:"text,omitempty"`
	URL         []string `toml:"url" json:"url,omitempty"`
	Title       []string `toml:"title" json:"title,omitempty"`
	Section     []string `toml:"section" json:"section,omitempty"`
	DocPath     []string `toml:"doc_path" json:"doc_path,omitempty"`
	Module      []string `toml:"module" json:"module,omitempty"`
	Chapter     []string `toml:"chapter" json:"chapter,omitempty"`
	ChunkIndex  []string `toml:"chunk_index" json:"chunk_index,omitempty"`
	TotalChunks []string `toml:"total_chunks" json:"total_chunks,omitempty"`
	ContentHash []string `toml:"content_hash" json:"content_hash,omitempty"`
	Tags        []string `toml:"tags" json:"tags,omitempty"`
	ContentType []string `toml:"content_type" json:"content_type,omitempty"`
	PageSlug    []string `toml:"page_slug" json:"page_slug,omitempty"`
	HeadingID   []string `toml:"heading_id" json:"heading_id,omitempty"`
}

// DefaultMapping covers the payload field names real textbook collections use.
func DefaultMapping() Mapping {
	return Mapping{
		Text:        []string{"text", "content", "chunk_text", "text_content", "page_content"},
		URL:         []string{"url", "source_url", "page_url"},
		Title:       []string{"title", "page_title"},
		Section:     []string{"section_heading", "section_title", "section", "heading", "section_header", "headings"},
		DocPath:     []string{"doc_path", "source_file", "file_path", "path", "source", "document_id", "doc_id"},
		Module:      []string{"module", "module_name"},
		Chapter:     []string{"chapter", "chapter_title"},
		ChunkIndex:  []string{"chunk_index", "position", "chunk_sequence", "chunk_id"},
		TotalChunks: []string{"total_chunks"},
		ContentHash: []string{"content_hash"},
		Tags:        []string{"tags"},
		ContentType: []string{"content_type"},
		PageSlug:    []string{"page_slug", "slug"},
		HeadingID:   []string{"heading_id"},
	}
}

// FieldNames lists the chunk fields a Mapping feeds, in display order.
func FieldNames() []string {
	return []string{FieldText, FieldURL, FieldTitle, FieldSection, FieldDocPath, FieldModule,
		FieldChapter, FieldChunkIndex, FieldTotalChunks, FieldContentHash, FieldTags,
		FieldContentType, FieldPageSlug, FieldHeadingID}
}

// slot returns a pointer to the candidate list of a field, or nil.
func (m *Mapping) slot(field string) *[]string {
	switch field {
	case FieldText:
		return &m.Text
	case FieldURL:
		return &m.URL
	case FieldTitle:
		return &m.Title
	case FieldSection:
		return &m.Section
	case FieldDocPath:
		return &m.DocPath
	case FieldModule:
		return &m.Module
	case FieldChapter:
		return &m.Chapter
	case FieldChunkIndex:
		return &m.ChunkIndex
	case FieldTotalChunks:
		return &m.TotalChunks
	case FieldContentHash:
		return &m.ContentHash
	case FieldTags:
		return &m.Tags
	case FieldContentType:
		return &m.ContentType
	case FieldPageSlug:
		return &m.PageSlug
	case FieldHeadingID:
		return &m.HeadingID
	}
	return nil
}

// Candidates returns the payload keys tried for field, in order.
func (m Mapping) Candidates(field string) []string {
	if p := m.slot(field); p != nil {
		return *p
	}
	return nil
}

// gradedFields are the chunk fields an arm's hit is graded by: its doc
// path, module, chapter and URL, and the page slug, section and heading
// id a citation URL is built from.
func gradedFields() []string {
	return []string{FieldURL, FieldDocPath, FieldPageSlug, FieldSection, FieldHeadingID, FieldModule, FieldChapter}
}

// forGrading selects the payload an arm's hit is graded by: every key
// except the top-level keys named only by fields grading never reads
// (the text, the bulk of a payload; the title, tags, content hash and
// type, chunk index and count). A key a graded field also names, or one
// a graded field's dotted path starts with, stays. It is not an include
// list of the graded fields' keys: a plain key is also looked for one
// level down in nested objects ("metadata.url"), whose names the mapping
// does not hold.
func (m Mapping) forGrading() *qc.WithPayloadSelector {
	graded := map[string]bool{}
	for _, f := range gradedFields() {
		for _, k := range m.Candidates(f) {
			graded[k] = true
			if head, _, ok := strings.Cut(k, "."); ok {
				graded[head] = true
			}
		}
	}
	var drop []string
	seen := map[string]bool{}
	for _, f := range FieldNames() {
		if slices.Contains(gradedFields(), f) {
			continue
		}
		for _, k := range m.Candidates(f) {
			if !graded[k] && !seen[k] && !strings.Contains(k, ".") {
				drop, seen[k] = append(drop, k), true
			}
		}
	}
	if len(drop) == 0 {
		return qc.NewWithPayload(true)
	}
	return qc.NewWithPayloadExclude(drop...)
}

// WithDefaults returns m with every empty field taken from DefaultMapping.
func (m Mapping) WithDefaults() Mapping {
	d := DefaultMapping()
	for _, f := range FieldNames() {
		if p := m.slot(f); len(*p) == 0 {
			*p = slices.Clone(*d.slot(f))
		}
	}
	return m
}

// ParseMapping builds a Mapping from a [mapping] table (field -> keys),
// rejecting unknown field names. Unset fields stay empty; Open fills them
// from DefaultMapping (WithDefaults).
func ParseMapping(table map[string][]string) (Mapping, error) {
	var m Mapping
	for field, keys := range table {
		p := m.slot(field)
		if p == nil {
			return Mapping{}, fmt.Errorf("%w: unknown field %q in [mapping] of ragscope.toml: use one of %s",
				retrieval.ErrConfig, field, strings.Join(FieldNames(), ", "))
		}
		for _, k := range keys {
			if strings.TrimSpace(k) != "" {
				*p = append(*p, strings.TrimSpace(k))
			}
		}
	}
	return m, nil
}

// Decode turns a point's payload into a Chunk. It never fails: a value of
// an unexpected type is shown as found (rendered as text) where a text is
// expected, skipped where a number is expected, and every payload field no
// mapping claimed lands in Chunk.Extra.
func (m Mapping) Decode(id string, payload map[string]*qc.Value) retrieval.Chunk {
	c, _ := m.decode(id, payload)
	return c
}

// decode also reports which payload path fed each field.
func (m Mapping) decode(id string, payload map[string]*qc.Value) (retrieval.Chunk, map[string]string) {
	c := retrieval.Chunk{ID: id}
	parents := nestedKeys(payload)
	lookup := func(payload map[string]*qc.Value, key string) (*qc.Value, string) {
		return lookupIn(payload, parents, key)
	}
	used := make(map[string]string, 16) // field -> path
	claimed := make(map[string]bool, 16)
	str := func(field string, dst *string) {
		for _, k := range m.Candidates(field) {
			v, path := lookup(payload, k)
			if s, ok := asText(v); ok {
				*dst, used[field], claimed[path] = s, path, true
				return
			}
		}
	}
	str(FieldText, &c.Text)
	str(FieldURL, &c.URL)
	str(FieldTitle, &c.Title)
	str(FieldDocPath, &c.DocPath)
	str(FieldModule, &c.Module)
	str(FieldChapter, &c.Chapter)
	str(FieldContentHash, &c.ContentHash)
	str(FieldContentType, &c.ContentType)
	str(FieldPageSlug, &c.PageSlug)
	str(FieldHeadingID, &c.HeadingID)

	for _, k := range m.Candidates(FieldSection) {
		v, path := lookup(payload, k)
		if l := v.GetListValue(); l != nil {
			crumbs := textList(l)
			if len(crumbs) == 0 {
				continue
			}
			c.Section, c.Breadcrumb = crumbs[len(crumbs)-1], crumbs
			used[FieldSection], claimed[path] = path, true
			break
		}
		if s, ok := asText(v); ok {
			c.Section, used[FieldSection], claimed[path] = s, path, true
			break
		}
	}
	for _, f := range []struct {
		name string
		dst  **int
	}{{FieldChunkIndex, &c.ChunkIndex}, {FieldTotalChunks, &c.TotalChunks}} {
		for _, k := range m.Candidates(f.name) {
			v, path := lookup(payload, k)
			if n, ok := asInt(v); ok {
				*f.dst, used[f.name], claimed[path] = &n, path, true
				break
			}
		}
	}
	for _, k := range m.Candidates(FieldTags) {
		v, path := lookup(payload, k)
		if isNull(v) {
			continue
		}
		if l := v.GetListValue(); l != nil {
			c.Tags = textList(l)
		} else if s, ok := asText(v); ok {
			c.Tags = []string{s}
		} else {
			continue
		}
		used[FieldTags], claimed[path] = path, true
		break
	}
	c.Extra = extra(payload, claimed)
	return c, used
}

// nestedKeys lists the payload's object-valued keys, sorted, for lookupIn.
func nestedKeys(payload map[string]*qc.Value) []string {
	var parents []string
	for k, v := range payload {
		if v.GetStructValue() != nil {
			parents = append(parents, k)
		}
	}
	sort.Strings(parents)
	return parents
}

// lookupIn finds key in payload: a dotted path is followed through nested
// objects; a plain key is looked for at the top level first, then one level
// down in the nested objects parents (sorted, for a stable choice).
func lookupIn(payload map[string]*qc.Value, parents []string, key string) (*qc.Value, string) {
	if v, ok := payload[key]; ok && !isNull(v) {
		return v, key
	}
	if strings.Contains(key, ".") {
		parts := strings.Split(key, ".")
		fields := payload
		for i, p := range parts {
			v, ok := fields[p]
			if !ok || isNull(v) {
				return nil, ""
			}
			if i == len(parts)-1 {
				return v, key
			}
			s := v.GetStructValue()
			if s == nil {
				return nil, ""
			}
			fields = s.GetFields()
		}
		return nil, ""
	}
	for _, p := range parents {
		if v, ok := payload[p].GetStructValue().GetFields()[key]; ok && !isNull(v) {
			return v, p + "." + key
		}
	}
	return nil, ""
}

func isNull(v *qc.Value) bool {
	if v == nil {
		return true
	}
	_, ok := v.GetKind().(*qc.Value_NullValue)
	return ok || v.GetKind() == nil
}

// asText renders a scalar as text. Lists and objects are rendered as found
// (so a wrong mapping shows, instead of vanishing). Empty strings and nulls
// count as missing.
func asText(v *qc.Value) (string, bool) {
	if isNull(v) {
		return "", false
	}
	if s, ok := v.GetKind().(*qc.Value_StringValue); ok {
		t := strings.TrimSpace(s.StringValue)
		return s.StringValue, t != ""
	}
	return render(v, 0), true
}

// asInt reads a whole number from an integer, an integral double or a
// numeric string (chunk ids are sometimes "12").
func asInt(v *qc.Value) (int, bool) {
	switch k := v.GetKind().(type) {
	case *qc.Value_IntegerValue:
		if k.IntegerValue < math.MinInt32 || k.IntegerValue > math.MaxInt32 {
			return 0, false
		}
		return int(k.IntegerValue), true
	case *qc.Value_DoubleValue:
		f := k.DoubleValue
		if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
			return 0, false
		}
		return int(f), true
	case *qc.Value_StringValue:
		n, err := strconv.Atoi(strings.TrimSpace(k.StringValue))
		if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// textList renders each non-null list element as text.
func textList(l *qc.ListValue) []string {
	var out []string
	for _, v := range l.GetValues() {
		if s, ok := asText(v); ok {
			out = append(out, s)
		}
	}
	return out
}

// maxRender bounds a rendered value, so a huge payload field cannot flood
// the screen.
const (
	maxRender      = 2000
	maxRenderDepth = 6
)

// render shows any value as compact JSON-like text.
func render(v *qc.Value, depth int) string {
	var b strings.Builder
	renderTo(&b, v, depth)
	s := b.String()
	if len(s) > maxRender {
		cut := maxRender
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func renderTo(b *strings.Builder, v *qc.Value, depth int) {
	if b.Len() > maxRender {
		return
	}
	if depth > maxRenderDepth {
		b.WriteString("…")
		return
	}
	switch k := v.GetKind().(type) {
	case *qc.Value_StringValue:
		if depth == 0 {
			b.WriteString(k.StringValue)
		} else {
			b.WriteString(strconv.Quote(k.StringValue))
		}
	case *qc.Value_IntegerValue:
		b.WriteString(strconv.FormatInt(k.IntegerValue, 10))
	case *qc.Value_DoubleValue:
		b.WriteString(strconv.FormatFloat(k.DoubleValue, 'g', -1, 64))
	case *qc.Value_BoolValue:
		b.WriteString(strconv.FormatBool(k.BoolValue))
	case *qc.Value_ListValue:
		b.WriteByte('[')
		for i, e := range k.ListValue.GetValues() {
			if i > 0 {
				b.WriteString(", ")
			}
			renderTo(b, e, depth+1)
			if b.Len() > maxRender {
				break
			}
		}
		b.WriteByte(']')
	case *qc.Value_StructValue:
		fields := k.StructValue.GetFields()
		keys := make([]string, 0, len(fields))
		for key := range fields {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, key := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(key))
			b.WriteString(": ")
			renderTo(b, fields[key], depth+1)
			if b.Len() > maxRender {
				break
			}
		}
		b.WriteByte('}')
	default:
		b.WriteString("null")
	}
}

// extra collects payload fields no mapping claimed, one level of nested
// objects flattened to "parent.key".
func extra(payload map[string]*qc.Value, claimed map[string]bool) map[string]string {
	var out map[string]string
	put := func(k, v string) {
		if out == nil {
			out = make(map[string]string)
		}
		out[k] = v
	}
	for k, v := range payload {
		if claimed[k] {
			continue
		}
		if s := v.GetStructValue(); s != nil {
			for sk, sv := range s.GetFields() {
				if !claimed[k+"."+sk] {
					put(k+"."+sk, render(sv, 0))
				}
			}
			continue
		}
		put(k, render(v, 0))
	}
	return out
}

// Detection tells which payload key fed each chunk field in a sample.
type Detection struct {
	// Fields maps every chunk field (FieldNames) to the payload path that
	// fed it most often, or "" when no sampled point had it.
	Fields map[string]string
	// Found counts, per chunk field, the sampled points that had it.
	Found map[string]int
	// Samples is the number of payloads examined.
	Samples int
	// PayloadKeys are the payload paths seen (nested objects as "a.b"), sorted.
	PayloadKeys []string
}

// Missing lists the chunk fields no sampled point had, in FieldNames order.
func (d Detection) Missing() []string {
	var out []string
	for _, f := range FieldNames() {
		if d.Fields[f] == "" {
			out = append(out, f)
		}
	}
	return out
}

// DetectMapping reports, with the default mapping, which payload key fed
// each chunk field in samples.
func DetectMapping(samples []map[string]*qc.Value) Detection {
	return DefaultMapping().Detect(samples)
}

// Detect reports which payload key fed each chunk field in samples.
func (m Mapping) Detect(samples []map[string]*qc.Value) Detection {
	d := Detection{Fields: map[string]string{}, Found: map[string]int{}, Samples: len(samples)}
	counts := map[string]map[string]int{}
	keys := map[string]bool{}
	for _, p := range samples {
		_, used := m.decode("", p)
		for f, path := range used {
			if counts[f] == nil {
				counts[f] = map[string]int{}
			}
			counts[f][path]++
			d.Found[f]++
		}
		for k, v := range p {
			if s := v.GetStructValue(); s != nil {
				for sk := range s.GetFields() {
					keys[k+"."+sk] = true
				}
				continue
			}
			keys[k] = true
		}
	}
	for _, f := range FieldNames() {
		best, bestN := "", 0
		for path, n := range counts[f] {
			if n > bestN || (n == bestN && path < best) {
				best, bestN = path, n
			}
		}
		d.Fields[f] = best
	}
	for k := range keys {
		d.PayloadKeys = append(d.PayloadKeys, k)
	}
	sort.Strings(d.PayloadKeys)
	return d
}
