// Package retrieval is ragscope's domain: queries, chunks, hits, results,
// the retrieval pipeline (mode routing, validation, threshold, ranking,
// dedup, citation URLs, timings), grounded context assembly and the
// grounding policy. It imports no network client and no UI library:
// backends implement the Embedder and Store seams in their own packages.
package retrieval

import (
	"context"
	"strings"
	"time"
)

// Mode selects how a query is answered.
type Mode string

const (
	// ModeNormal embeds the question and runs a vector search.
	ModeNormal Mode = "normal"
	// ModeSelectedText uses the user's selected text as the only context,
	// with no embedding and no vector search.
	ModeSelectedText Mode = "selected_text_only"
)

// String returns the mode's wire name.
func (m Mode) String() string { return string(m) }

// Limits of a query, from the seed contracts.
const (
	// MaxQuestionLen is the number of characters (runes) a question keeps;
	// longer questions are truncated before embedding.
	MaxQuestionLen = 1000
	// MinTopK and MaxTopK bound Query.TopK.
	MinTopK = 1
	// MaxTopK is the largest accepted TopK.
	MaxTopK = 100
	// DefaultTopK is used when a caller leaves TopK at zero in a config.
	DefaultTopK = 5
	// DedupJaccard is the token Jaccard similarity at or above which a chunk
	// is a near-duplicate of an accepted one.
	DedupJaccard = 0.95
)

// TopKOrDefault is the first of ks that is set (above 0), else
// DefaultTopK: a top_k left at zero, by a query, a golden set or a
// configuration, means the default.
func TopKOrDefault(ks ...int) int {
	for _, k := range ks {
		if k > 0 {
			return k
		}
	}
	return DefaultTopK
}

// Filters restricts a search. Each field is "any of" its values; fields are
// combined with AND. Empty fields do not filter.
type Filters struct {
	Modules      []string `json:"modules,omitempty" yaml:"modules,omitempty"`
	Chapters     []string `json:"chapters,omitempty" yaml:"chapters,omitempty"`
	ContentTypes []string `json:"content_types,omitempty" yaml:"content_types,omitempty"`
	Tags         []string `json:"tags,omitempty" yaml:"tags,omitempty"`
	// IDs and DocPaths restrict a search to these point ids or doc paths
	// (as stored). Users do not set them: "Why not this chunk?" looks up
	// an expected source with them (Qdrant has_id, a doc-path match).
	IDs      []string `json:"-" yaml:"-"`
	DocPaths []string `json:"-" yaml:"-"`
}

// IsEmpty reports whether the filters restrict nothing.
func (f Filters) IsEmpty() bool {
	return len(f.Modules) == 0 && len(f.Chapters) == 0 && len(f.ContentTypes) == 0 && len(f.Tags) == 0 &&
		len(f.IDs) == 0 && len(f.DocPaths) == 0
}

// String describes the filters on one line ("module=a|b tag=c"), or ""
// when there are none.
func (f Filters) String() string {
	var parts []string
	add := func(name string, v []string) {
		if len(v) > 0 {
			parts = append(parts, name+"="+strings.Join(v, "|"))
		}
	}
	add("module", f.Modules)
	add("chapter", f.Chapters)
	add("type", f.ContentTypes)
	add("tag", f.Tags)
	return strings.Join(parts, " ")
}

// Match reports whether c satisfies every non-empty filter field: the chunk's
// value (or, for tags, any of its tags) must equal one of the field's values.
func (f Filters) Match(c *Chunk) bool {
	return anyOf(f.Modules, c.Module) && anyOf(f.Chapters, c.Chapter) &&
		anyOf(f.ContentTypes, c.ContentType) && anyOfList(f.Tags, c.Tags) &&
		anyOf(f.IDs, c.ID) && anyOf(f.DocPaths, c.DocPath)
}

func anyOf(want []string, have string) bool {
	if len(want) == 0 {
		return true
	}
	for _, w := range want {
		if w == have {
			return true
		}
	}
	return false
}

func anyOfList(want, have []string) bool {
	if len(want) == 0 {
		return true
	}
	for _, h := range have {
		if anyOf(want, h) {
			return true
		}
	}
	return false
}

// Query is one retrieval request.
type Query struct {
	// Question is the user's natural-language question.
	Question string `json:"question"`
	// WithArms asks a fused (hybrid) search for each arm's own ranking in
	// Result.Arms (eval's per-arm figures); others ignore it.
	WithArms bool `json:"-"`
	// Mode defaults to ModeNormal when empty.
	Mode Mode `json:"mode"`
	// SelectedText is the only context in ModeSelectedText.
	SelectedText string `json:"selected_text,omitempty"`
	// SourceDocPath and SourceSection locate the selection for its citation.
	SourceDocPath string `json:"source_doc_path,omitempty"`
	SourceSection string `json:"source_section,omitempty"`
	// TopK is the number of hits asked of the store (1..100).
	TopK int `json:"top_k"`
	// Threshold is the minimum score a hit must reach (0..1); 0 is none,
	// so hits with a negative similarity are kept too (see Below).
	Threshold float64 `json:"threshold"`
	// Filters restrict the search.
	Filters Filters `json:"filters"`
	// NoDedup keeps near-duplicate chunks instead of dropping them.
	NoDedup bool `json:"no_dedup,omitempty"`
	// Rerank reorders the candidates with the pipeline's Reranker; see
	// RerankOptions.
	Rerank RerankOptions `json:"rerank,omitzero"`
	// Exact asks the store for an exact (brute-force) search instead of
	// an approximate one (Qdrant params.exact); exact stores ignore it.
	Exact bool `json:"exact,omitempty"`
	// SearchMode chooses how a store that ranks in more than one way
	// ranks (a ModalStore; the local index's "hybrid", "bm25" and
	// "embedder"); "" is the store's own way. A store that ranks one way
	// only refuses a mode.
	SearchMode string `json:"search_mode,omitempty"`
}

// Chunk is one piece of a document as stored in a collection or index.
// Fields the source does not have stay empty (or nil): they are shown as
// missing, never invented.
type Chunk struct {
	// ID is the point or chunk id.
	ID string `json:"id"`
	// Text is the chunk's content.
	Text string `json:"text"`
	// URL is the citation URL as stored (absolute or site-relative), if any.
	URL string `json:"url,omitempty"`
	// DocPath is the source file, e.g. "docs/module-1-ros2/01-what-is-ros2.md".
	DocPath string `json:"doc_path,omitempty"`
	// PageSlug is the page's front matter slug, when known.
	PageSlug string `json:"page_slug,omitempty"`
	// Title is the page title.
	Title string `json:"title,omitempty"`
	// Section is the heading the chunk sits under.
	Section string `json:"section,omitempty"`
	// HeadingID is the section heading's explicit id ({#id}), when known.
	HeadingID string `json:"heading_id,omitempty"`
	// Breadcrumb is the chain of headings from the page title to Section.
	Breadcrumb []string `json:"breadcrumb,omitempty"`
	// Module and Chapter place the chunk in the course.
	Module  string `json:"module,omitempty"`
	Chapter string `json:"chapter,omitempty"`
	// ChunkIndex is the chunk's position in its document (reading order),
	// and TotalChunks the number of chunks of that document; nil when unknown.
	ChunkIndex  *int `json:"chunk_index"`
	TotalChunks *int `json:"total_chunks"`
	// ContentType and Tags come from front matter or payload.
	ContentType string   `json:"content_type,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	// ContentHash is a hash of the text (SHA-256 hex when ragscope made it).
	ContentHash string `json:"content_hash,omitempty"`
	// Extra holds payload fields that no mapping claimed, rendered as text.
	Extra map[string]string `json:"extra,omitempty"`
}

// Index returns the chunk index and whether it is known.
func (c *Chunk) Index() (int, bool) {
	if c.ChunkIndex == nil {
		return 0, false
	}
	return *c.ChunkIndex, true
}

// IntPtr returns a pointer to v; handy for Chunk.ChunkIndex and TotalChunks.
func IntPtr(v int) *int { return &v }

// ScoredChunk is what a Store returns: a chunk and its similarity score.
type ScoredChunk struct {
	Chunk Chunk
	Score float64
	// Parts, when not nil, are the components Score was fused from (a
	// hybrid search).
	Parts *ScoreParts
	// Arms, when not nil, place the chunk in each arm of a fused search
	// (a Qdrant hybrid query), in the arms' order.
	Arms []Arm
}

// ArmList is one arm's own ranking in a fused search.
type ArmList struct {
	Label  string
	Vector string
	Hits   []ScoredChunk
	// Cites are the hits' citations (set by the pipeline, in Hits' order).
	Cites []Citation
}

// Arm is a chunk's place in one arm of a fused search: the arm's own
// ranking, as the arm alone returns it.
type Arm struct {
	// Label names the arm for people: "dense" or the sparse model's
	// family ("bm25").
	Label string `json:"label"`
	// Vector is the collection's name of the arm's vector.
	Vector string `json:"vector"`
	// Rank counts from 1 in the arm's ranking; 0 when the arm, queried to
	// its prefetch limit, did not return the chunk (Score is then 0).
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	// Part is the arm's part of the fused score, as the fusion made it
	// (RRF: 1/(k + rank − 1); DBSF: the arm's normalised score); 0 for
	// an arm that did not return the chunk, nil when the store cannot
	// tell (an arm ranking cut short of the prefetch limit).
	Part *float64 `json:"part,omitempty"`
}

// ScoreParts are the components of a hybrid search's score: a lexical
// (BM25) and the embedder's similarity, each with its rank among the chunks the
// search considered (0 when the chunk was not among that side's
// candidates), a title match, and how they were fused.
type ScoreParts struct {
	// Fusion names how Score was made, e.g. "0.8×cosine + 0.2×BM25 +
	// title match".
	Fusion string `json:"fusion"`
	// BM25 is the lexical score, 0..1 (BM25 over the best a question's
	// terms could score).
	BM25     float64 `json:"bm25"`
	BM25Rank int     `json:"bm25_rank,omitempty"`
	// Cosine is the embedder's cosine similarity.
	Cosine     float64 `json:"cosine"`
	CosineRank int     `json:"cosine_rank,omitempty"`
	// Title is how well the question names the chunk's page, 0..1 (1: the
	// question is the page's title).
	Title float64 `json:"title,omitempty"`
	// Ranked says the fusion reads each side's rank among the candidates
	// (or rescales the side over them): the score depends on the other
	// chunks the search considered, as a fusion of arms does.
	Ranked bool `json:"-"`
}

// Citation is where a hit can be cited.
type Citation struct {
	// URL is the citation link ("" when neither a payload URL nor a doc path
	// was available).
	URL string `json:"url"`
	// Source says how URL was obtained: "payload", "built" or "none".
	Source  string `json:"source"`
	Title   string `json:"title"`
	Section string `json:"section"`
	DocPath string `json:"doc_path,omitempty"`
}

// Hit is a ranked chunk in a result.
type Hit struct {
	// Rank counts from 1 among kept hits.
	Rank     int      `json:"rank"`
	Score    float64  `json:"score"`
	Chunk    Chunk    `json:"chunk"`
	Citation Citation `json:"citation"`
	// Rerank: set when the result was reranked. Score is then the
	// relevance score the list is ordered by (RerankScore too), VectorScore
	// the similarity and VectorRank the position in the vector order of
	// the candidates (from 1); RerankScore is nil when the reranker did
	// not score the hit (a failed rerank keeps the vector order).
	VectorRank  int      `json:"vector_rank,omitempty"`
	VectorScore float64  `json:"vector_score,omitempty"`
	RerankScore *float64 `json:"rerank_score,omitempty"`
	// ScoreParts, when set, are the components of a fused (hybrid) Score.
	ScoreParts *ScoreParts `json:"score_parts,omitempty"`
	// Arms, set by a fused (hybrid) search, place the hit in each arm.
	Arms []Arm `json:"arms,omitempty"`
}

// DroppedHit is a hit left out of the context, kept so explorers can show it.
type DroppedHit struct {
	Hit
	// Reason is the stage that cut the hit: "below_threshold",
	// "duplicate", or with reranking "below_rerank_threshold".
	// Result.Dropped lists hits in pipeline order (threshold, dedup; with
	// reranking threshold, rerank threshold, dedup). The candidates the
	// reranker left below its top_k are not listed: they are the
	// searched candidates in neither Hits nor Dropped (RerankInfo).
	Reason string `json:"reason"`
	// DuplicateOf is the rank of the kept hit this one duplicates (0 if not a duplicate).
	DuplicateOf int `json:"duplicate_of,omitempty"`
	// Similarity is the token Jaccard similarity with DuplicateOf (1 for equal hashes).
	Similarity float64 `json:"similarity,omitempty"`
}

// Drop reasons.
const (
	ReasonDuplicate      = "duplicate"
	ReasonBelowThreshold = "below_threshold"
)

// Timings records how long each stage took.
type Timings struct {
	// Load is the time this process spent loading or building the local
	// index before its first query (0 when none): it is part of Total, so
	// the total a one-shot CLI query prints is what the user waited.
	//
	Load   time.Duration `json:"-"`
	Embed  time.Duration `json:"-"`
	Search time.Duration `json:"-"`
	Post   time.Duration `json:"-"`
	// Rerank is the reranker's call (0 without reranking).
	Rerank time.Duration `json:"-"`
	Total  time.Duration `json:"-"`
}

// Params are the parameters a result was produced with.
type Params struct {
	TopK       int     `json:"top_k"`
	Threshold  float64 `json:"threshold"`
	Dedup      bool    `json:"dedup"`
	Filters    Filters `json:"filters"`
	Backend    string  `json:"backend"`
	Collection string  `json:"collection"`
	Model      string  `json:"model"`
	SlugStyle  string  `json:"slug_style"`
	// Ranking is how the store ranked the hits (Ranker): "" for vector
	// similarity, "hybrid" or "bm25" for the local index's searches that
	// blend in or rank by BM25. Rerank labels name the first stage by it.
	Ranking string `json:"ranking,omitempty"`
}

// Grounded is what an answering agent receives.
type Grounded struct {
	// Sufficient is false when there is nothing to ground an answer on.
	Sufficient bool `json:"sufficient_context"`
	// Instruction is the system instruction of the grounding policy.
	Instruction string `json:"system_instruction"`
	// Context is the assembled context with [Source N: …] markers.
	Context string `json:"context"`
	// Sources lists the citations in Source-number order.
	Sources []Citation `json:"sources"`
}

// Result is the outcome of one Retrieve call.
type Result struct {
	// Question is the question as used (after truncation).
	Question string `json:"question"`
	Mode     Mode   `json:"mode"`
	// Truncated is true when the question was cut to MaxQuestionLen; then
	// OriginalLength holds its length in characters.
	Truncated      bool         `json:"truncated"`
	OriginalLength int          `json:"original_length,omitempty"`
	Hits           []Hit        `json:"hits"`
	Dropped        []DroppedHit `json:"dropped"`
	Timings        Timings      `json:"-"`
	Params         Params       `json:"params"`
	Grounded       Grounded     `json:"grounded"`
	// Rerank describes the reranking, nil without it.
	Rerank *RerankInfo `json:"rerank,omitempty"`

	// Arms, after a fused search asked WithArms (eval), are each arm's
	// own ranking, for the arms' figures beside the fused ones.
	Arms []ArmList `json:"-"`
}

// Embedder turns texts into vectors. Implementations must be safe for
// concurrent use and honour ctx.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name is the embedding model's name.
	Name() string
	// Dim is the vector length, or 0 when not known until the first call.
	Dim() int
}

// SearchRequest is one vector search.
type SearchRequest struct {
	Vector []float32
	// Text is the question Vector embeds, for stores that also score the
	// text itself (the local index's exact lexical part); others ignore it.
	Text      string
	Limit     int
	Threshold float64
	Filters   Filters
	// Exact asks for an exact search (Qdrant params.exact); stores that
	// are exact by nature ignore it.
	Exact bool
	// IDsOnly says the caller reads only ids and scores (a rank count):
	// stores may leave the payload out.
	IDsOnly bool
	// ArmHits, when set, asks a store that fuses arms (a Qdrant hybrid
	// search) for each arm's own ranking to Limit, with the payload
	// fields a hit is graded by (doc path, module, chapter, URL and what
	// a citation is built from; the text may be left out), in the same
	// round trip; it fills *ArmHits (nil for a search that was
	// not fused). The hits' Arms then reach Limit, not the prefetch limit.
	ArmHits *[]ArmList
	// Rescore, when set, switches rescoring with the original vectors on
	// or off for a quantized collection (Qdrant quantization.rescore);
	// nil is the store's default. Others ignore it.
	Rescore *bool
}

// Quantizer is implemented by stores whose vectors may be quantized
// (Qdrant); then SearchRequest.Rescore applies.
type Quantizer interface {
	Quantized(ctx context.Context) bool
}

// FilterPreparer is implemented by stores that must learn something once
// before their first filtered search (Qdrant's payload keys): a caller
// that knows a filtered search is coming can start it early, beside other
// work.
type FilterPreparer interface {
	PrepareFilters(ctx context.Context) error
}

// Counter is implemented by stores that count the chunks a filter leaves
// (Qdrant Count): "filter leaves 0 points" explains a filtered miss.
type Counter interface {
	Count(ctx context.Context, f Filters) (int64, error)
}

// Approximator is implemented by stores whose search may be approximate
// (Qdrant's HNSW index): a chunk can be missing from a search that an
// exact one (SearchRequest.Exact) returns. Stores that do not implement
// it are exact.
type Approximator interface {
	Approximate() bool
}

// Store searches a collection of chunks. Implementations must be safe for
// concurrent use, read-only, and honour ctx.
type Store interface {
	// Search returns at most req.Limit chunks with score >= req.Threshold
	// that match req.Filters, best first.
	Search(ctx context.Context, req SearchRequest) ([]ScoredChunk, error)
	// Stats describes the collection.
	Stats(ctx context.Context) (Stats, error)
}

// Ranker is implemented by stores that may rank by more than vector
// similarity (the local index). Ranking is "" when they rank by vector
// similarity, else the ranking's name ("hybrid", "bm25").
type Ranker interface {
	Ranking() string
}

// ModalStore is implemented by stores that rank in more than one way (the
// local index: BM25 blended with the embedder, BM25 alone, the embedder
// alone). WithSearchMode returns a view of the store that ranks in mode
// and shares its data; it leaves the store as it is, so searches running
// meanwhile are not disturbed, and it is cheap: the pipeline takes a view
// per query that names a mode (Query.SearchMode).
type ModalStore interface {
	WithSearchMode(mode string) (Store, error)
}

// Walker is implemented by stores that can list every chunk (link audits).
type Walker interface {
	// Walk calls fn with successive pages of chunks until all were seen,
	// fn returns an error, or ctx ends. total is the expected number of
	// chunks (or -1 when unknown), for progress.
	Walk(ctx context.Context, fn func(page []Chunk, total int) error) error
}

// Collection statuses.
const (
	StatusReady    = "ready"
	StatusEmpty    = "empty"
	StatusNotFound = "not_found"
)

// Stats describes a collection or index.
type Stats struct {
	Backend    string `json:"backend"`
	Collection string `json:"collection"`
	// Status is StatusReady, StatusEmpty or StatusNotFound.
	Status     string `json:"status"`
	Points     int64  `json:"points"`
	VectorSize int    `json:"vector_size"`
	Distance   string `json:"distance"`
	// PayloadFields are the payload fields present (from a sample).
	PayloadFields []string `json:"payload_fields"`
	// IndexedFields are payload fields with an index.
	IndexedFields []string `json:"indexed_fields,omitempty"`
	// Mapping tells which payload field feeds each chunk field.
	Mapping map[string]string `json:"mapping,omitempty"`
	// Facets lists values present per filter field (module, chapter,
	// content_type, tag), for filter pickers.
	Facets map[string][]string `json:"facets,omitempty"`
	// FacetCounts, when the backend knows them, counts the points having
	// each facet value (field -> value -> points); displays list the most
	// frequent values first.
	FacetCounts map[string]map[string]int64 `json:"facet_counts,omitempty"`
	// FacetLabels, when the backend knows them, gives a facet value's
	// display label (field -> value -> label), e.g. a module folder's
	// sidebar category label.
	FacetLabels map[string]map[string]string `json:"facet_labels,omitempty"`
	// Collections lists the collections that exist (when not found).
	Collections []string `json:"collections,omitempty"`
	// Notes are human remarks (e.g. "REST port 6333 mapped to gRPC 6334").
	Notes []string `json:"notes,omitempty"`
	// Vectors lists every vector of the collection (named, dense and
	// sparse) and which ones ragscope searches.
	Vectors []VectorInfo `json:"vectors,omitempty"`
	// Search says how ragscope searches them, e.g. "hybrid: dense +
	// bm25 (qdrant/bm25), RRF k=2" ("" for a plain dense search).
	Search string `json:"search,omitempty"`
}

// VectorInfo describes one vector of a collection.
type VectorInfo struct {
	// Name is the vector's name ("" for a single unnamed vector).
	Name string `json:"name"`
	// Kind is "dense" or "sparse".
	Kind string `json:"kind"`
	// Size and Distance describe a dense vector.
	Size     int    `json:"size,omitempty"`
	Distance string `json:"distance,omitempty"`
	// Modifier is a sparse vector's modifier ("idf" or "none"), Model the
	// model ragscope takes it to be made by ("" when unknown).
	Modifier string `json:"modifier,omitempty"`
	Model    string `json:"model,omitempty"`
	// Used says ragscope searches this vector.
	Used bool `json:"used"`
}
