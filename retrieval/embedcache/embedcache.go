// Package embedcache embeds an index's chunk texts with a provider's
// model: in batches at the provider's maximum, several calls in flight,
// through an on-disk cache of document vectors (chatcache's store, under
// $XDG_CACHE_HOME/ragscope/embed) keyed by provider, model, dimensions,
// input type and the text's hash, so a re-index embeds only the chunks
// that changed, whatever the output file. Every batch's vectors are
// cached as soon as they arrive: a build that fails or is interrupted
// half-way keeps what it paid for.
package embedcache

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync"

	"golang.org/x/sync/errgroup"

	"ragscope/retrieval/chatcache"
)

// Kind is the cache folder's name under the user cache folder.
const Kind = "embed"

// DefaultConcurrency is the number of embedding calls in flight when
// Options.Concurrency is 0.
const DefaultConcurrency = 4

// Key is what decides a document vector besides its text.
type Key struct {
	// Provider and Model name the model; Dimensions the vector size asked
	// of it (0: its own); InputType the provider's document input type
	// ("search_document", "RETRIEVAL_DOCUMENT", "" when it has none).
	Provider, Model string
	Dimensions      int
	InputType       string
}

// Store is the on-disk cache of one Key's vectors. A nil *Store caches
// nothing. Its methods are safe for concurrent use.
type Store struct {
	c *chatcache.Cache
	k Key
}

// Open returns the store of k's vectors in dir (made on the first Put).
func Open(dir string, k Key) *Store { return &Store{c: chatcache.Open(dir), k: k} }

// key is text's entry key.
func (s *Store) key(text string) string {
	return chatcache.Key(Kind, s.k.Provider, s.k.Model, strconv.Itoa(s.k.Dimensions), s.k.InputType, chatcache.Hash(text))
}

// entry is a cached vector: its floats, little-endian, in base64.
type entry struct {
	Dim int    `json:"dim"`
	Vec string `json:"vec"`
}

// Get returns text's cached vector; a missing or damaged entry is a miss.
func (s *Store) Get(text string) ([]float32, bool) {
	if s == nil {
		return nil, false
	}
	b, ok := s.c.Get(s.key(text))
	if !ok {
		return nil, false
	}
	var e entry
	if json.Unmarshal(b, &e) != nil {
		return nil, false
	}
	raw, err := base64.StdEncoding.DecodeString(e.Vec)
	if err != nil || e.Dim <= 0 || len(raw) != 4*e.Dim {
		return nil, false
	}
	v := make([]float32, e.Dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v, true
}

// Put caches text's vector.
func (s *Store) Put(text string, v []float32) error {
	if s == nil {
		return nil
	}
	raw := make([]byte, 0, 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	b, err := json.Marshal(entry{Dim: len(v), Vec: base64.StdEncoding.EncodeToString(raw)})
	if err != nil {
		return fmt.Errorf("embed cache: %w", err)
	}
	return s.c.Put(s.key(text), b)
}

// Embedder embeds a batch of texts in one call.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Options configure EmbedAll.
type Options struct {
	// Batch is the most texts of one call (the provider's maximum; at
	// least 1).
	Batch int
	// BatchTokens, when above 0, bounds a call's texts by their estimated
	// tokens too (EstimateTokens), for a provider that limits a request's
	// tokens (OpenAI: 300,000).
	BatchTokens int
	// Concurrency is the number of calls in flight (DefaultConcurrency
	// when 0).
	Concurrency int
	// Progress, when set, is told the texts done so far (cached ones
	// included) of the total, from one goroutine at a time.
	Progress func(done int)
}

// Result is what EmbedAll did.
type Result struct {
	// Vectors are one per text, in order.
	Vectors [][]float32
	// Cached counts the texts the cache answered, Embedded those sent to
	// the provider (each distinct text once), Calls the batches sent.
	Cached, Embedded, Calls int
	// EstimatedTokens is EstimateTokens of the texts embedded, for a
	// provider that does not count them.
	EstimatedTokens int
}

// EstimateTokens is a generous estimate of text's tokens (a token per
// three bytes; English runs about four), for batch bounds and for
// providers that do not count them.
func EstimateTokens(text string) int { return len(text)/3 + 1 }

// batches cuts texts into runs of at most n texts and, when maxTokens is
// above 0, of at most maxTokens estimated tokens (a text over it alone
// is a batch of its own).
func batches(texts []string, n, maxTokens int) [][]string {
	var out [][]string
	lo, tokens := 0, 0
	for i, t := range texts {
		est := EstimateTokens(t)
		if i > lo && (i-lo >= n || (maxTokens > 0 && tokens+est > maxTokens)) {
			out = append(out, texts[lo:i])
			lo, tokens = i, 0
		}
		tokens += est
	}
	if lo < len(texts) {
		out = append(out, texts[lo:])
	}
	return out
}

// EmbedAll returns one vector per text: from the store when it has it,
// else from emb, in batches of at most o.Batch distinct texts,
// o.Concurrency calls at a time. Every batch's vectors are stored as it
// arrives, so a failure (or ctx ending) keeps the vectors already paid
// for; the first error stops the calls not yet sent. A vector the store
// cannot keep (a full disk) is still used: the build goes on.
func EmbedAll(ctx context.Context, emb Embedder, s *Store, texts []string, o Options) (Result, error) {
	res := Result{Vectors: make([][]float32, len(texts))}
	var missing []string
	where := map[string][]int{}
	for i, t := range texts {
		if v, ok := s.Get(t); ok {
			res.Vectors[i] = v
			res.Cached++
			continue
		}
		if _, seen := where[t]; !seen {
			missing = append(missing, t)
		}
		where[t] = append(where[t], i)
	}
	batch := max(o.Batch, 1)
	conc := o.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	var mu sync.Mutex
	done := res.Cached
	if o.Progress != nil {
		o.Progress(done)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for _, part := range batches(missing, batch, o.BatchTokens) {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			vecs, err := emb.Embed(gctx, part)
			mu.Lock()
			res.Calls++
			mu.Unlock()
			if err != nil {
				return err
			}
			if len(vecs) != len(part) {
				return fmt.Errorf("%d vectors for %d texts", len(vecs), len(part))
			}
			for j, t := range part {
				_ = s.Put(t, vecs[j])
			}
			mu.Lock()
			defer mu.Unlock()
			for j, t := range part {
				for _, i := range where[t] {
					res.Vectors[i] = vecs[j]
					done++
				}
			}
			res.Embedded += len(part)
			for _, t := range part {
				res.EstimatedTokens += EstimateTokens(t)
			}
			if o.Progress != nil {
				o.Progress(done)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}
