package eval

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/provider/netx"
)

// world is a fake backend: each registered question embeds to a
// one-dimensional vector holding its index, and the store answers that
// vector with the chunks registered for the question.
type world struct {
	mu         sync.Mutex
	questions  map[string]int
	answers    [][]retrieval.ScoredChunk
	searchErr  map[int]error
	embedErr   error
	embedDelay time.Duration
	delay      time.Duration
	batches    []int
	// inFlight and peak count concurrent searches.
	inFlight, peak int
}

func newWorld() *world {
	return &world{questions: map[string]int{}, searchErr: map[int]error{}}
}

// add registers question with the chunks the store returns for it.
func (w *world) add(question string, chunks ...retrieval.ScoredChunk) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.questions[question] = len(w.answers)
	w.answers = append(w.answers, chunks)
}

func (w *world) pipeline() *retrieval.Pipeline {
	return &retrieval.Pipeline{
		Embedder: fakeEmbedder{w}, Store: fakeStore{w}, Backend: "fake", Collection: "test",
		URLs: retrieval.URLBuilder{DocsBase: "https://book.example/docs/"},
	}
}

func (w *world) embedCalls() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int(nil), w.batches...)
}

type fakeEmbedder struct{ w *world }

func (e fakeEmbedder) Name() string { return "fake-embed" }
func (e fakeEmbedder) Dim() int     { return 1 }
func (e fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.w.mu.Lock()
	e.w.batches = append(e.w.batches, len(texts))
	err, delay := e.w.embedErr, e.w.embedDelay
	e.w.mu.Unlock()
	if err := sleep(ctx, delay); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	e.w.mu.Lock()
	defer e.w.mu.Unlock()
	for i, t := range texts {
		idx, ok := e.w.questions[t]
		if !ok {
			idx = -1
		}
		out[i] = []float32{float32(idx)}
	}
	return out, nil
}

type fakeStore struct{ w *world }

func (s fakeStore) Stats(context.Context) (retrieval.Stats, error) { return retrieval.Stats{}, nil }
func (s fakeStore) Search(ctx context.Context, req retrieval.SearchRequest) ([]retrieval.ScoredChunk, error) {
	s.w.mu.Lock()
	delay := s.w.delay
	s.w.inFlight++
	s.w.peak = max(s.w.peak, s.w.inFlight)
	s.w.mu.Unlock()
	err := sleep(ctx, delay)
	s.w.mu.Lock()
	s.w.inFlight--
	s.w.mu.Unlock()
	if err != nil {
		return nil, err
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	idx := int(req.Vector[0])
	if idx < 0 || idx >= len(s.w.answers) {
		return nil, nil
	}
	if err := s.w.searchErr[idx]; err != nil {
		return nil, err
	}
	var out []retrieval.ScoredChunk
	for _, sc := range s.w.answers[idx] {
		if req.Filters.Match(&sc.Chunk) && sc.Score >= req.Threshold && len(out) < req.Limit {
			out = append(out, sc)
		}
	}
	return out, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	return netx.Sleep(ctx, d)
}

var errStore = errors.New("store exploded")

// chunk is a demo-shaped chunk of doc (e.g. "module-1-ros2/01-what-is-ros2.md").
func chunk(id, doc, section, text string, score float64) retrieval.ScoredChunk {
	module, chapter := "", ""
	if i := strings.IndexByte(doc, '/'); i >= 0 {
		module = doc[:i]
		chapter = docusaurus.StripNumberPrefix(strings.TrimSuffix(doc[i+1:], ".md"))
	}
	return retrieval.ScoredChunk{Score: score, Chunk: retrieval.Chunk{
		ID: id, Text: text, DocPath: "docs/" + doc, Title: "T " + id, Section: section,
		Module: module, Chapter: chapter,
	}}
}

func f64(v float64) *float64 { return &v }
