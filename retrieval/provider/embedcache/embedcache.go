// Package embedcache embeds an index's chunk texts with a provider's
// model: in batches at the provider's maximum, several calls in flight,
// through an on-disk cache of document vectors (under
// $XDG_CACHE_HOME/ragscope/embed, one file per provider, model,
// dimensions and input type, named with chatcache.Key) keyed by the
// text's hash, so a re-index embeds only the chunks
// that changed, whatever the output file. Every batch's vectors are
// cached as soon as they arrive: a build that fails or is interrupted
// half-way keeps what it paid for.
package embedcache

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/sync/errgroup"

	"ragscope/internal/platform"
	"ragscope/internal/readlimit"
	"ragscope/retrieval/provider/chatcache"
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

// Store is the on-disk cache of one Key's vectors: one append-only file
// per key in the cache folder, read whole (at most MaxPack bytes) on first
// use. Each batch of vectors is appended in one write, so two builds
// sharing a file (two processes) never interleave their records, and
// every record carries its checksum: a damaged one, and what follows it,
// is a miss, never an error. A nil *Store caches nothing. Its methods are
// safe for concurrent use.
type Store struct {
	path string
	once sync.Once
	mu   sync.Mutex
	vecs map[[sha256.Size]byte][]float32
	size int64
	// off is set when the file is not a regular file: nothing is read
	// from it or written to it.
	off bool
}

// MaxPack bounds one key's cache file as it is read: 1 GiB (about 250,000
// vectors of 1,024 dimensions). A larger file is not read, and is started
// afresh by the next write.
const MaxPack = 1 << 30

// maxDim bounds a record's dimensions.
const maxDim = 1 << 16

// recordMagic starts every record.
const recordMagic = "RSV1"

// Open returns the store of k's vectors in dir (the folder is made on the
// first Put).
func Open(dir string, k Key) *Store {
	name := chatcache.Key(Kind, k.Provider, k.Model, strconv.Itoa(k.Dimensions), k.InputType)
	return &Store{path: filepath.Join(dir, name+".vec")}
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// load reads the store's file once.
func (s *Store) load() {
	s.once.Do(func() {
		s.vecs = map[[sha256.Size]byte][]float32{}
		// Only a regular file is read: a named pipe there is never
		// opened in a way that waits, and is never written over.
		f, st, err := readlimit.Open(s.path)
		if errors.Is(err, readlimit.ErrNotRegular) {
			s.off = true
			return
		}
		if err != nil {
			return
		}
		defer f.Close()
		if st.Size() > MaxPack {
			s.size = MaxPack + 1 // rewritten by the next Put
			return
		}
		b, err := io.ReadAll(io.LimitReader(f, MaxPack))
		if err != nil {
			return
		}
		s.size = int64(len(b))
		for len(b) > 0 {
			h, v, n := decodeRecord(b)
			if n == 0 {
				return // damaged: the rest is a miss
			}
			s.vecs[h] = v
			b = b[n:]
		}
	})
}

// decodeRecord reads the record at the start of b: the text's hash, its
// vector and the record's length (0 when b does not start with a whole,
// intact record).
func decodeRecord(b []byte) (h [sha256.Size]byte, v []float32, n int) {
	le := binary.LittleEndian
	head := len(recordMagic) + 4 + sha256.Size
	if len(b) < head || string(b[:len(recordMagic)]) != recordMagic {
		return h, nil, 0
	}
	dim := int(le.Uint32(b[len(recordMagic):]))
	n = head + 4*dim + 4
	if dim <= 0 || dim > maxDim || len(b) < n || crc32.ChecksumIEEE(b[:n-4]) != le.Uint32(b[n-4:]) {
		return h, nil, 0
	}
	copy(h[:], b[len(recordMagic)+4:])
	v = make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(le.Uint32(b[head+4*i:]))
	}
	return h, v, n
}

// appendRecord appends the record of text's vector v to b.
func appendRecord(b []byte, text string, v []float32) []byte {
	le := binary.LittleEndian
	start := len(b)
	b = append(b, recordMagic...)
	b = le.AppendUint32(b, uint32(len(v)))
	h := sha256.Sum256([]byte(text))
	b = append(b, h[:]...)
	for _, x := range v {
		b = le.AppendUint32(b, math.Float32bits(x))
	}
	return le.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// Get returns a copy of text's cached vector.
func (s *Store) Get(text string) ([]float32, bool) {
	if s == nil {
		return nil, false
	}
	s.load()
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vecs[sha256.Sum256([]byte(text))]
	return slices.Clone(v), ok
}

// Len is the number of vectors cached.
func (s *Store) Len() int {
	if s == nil {
		return 0
	}
	s.load()
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.vecs)
}

// Put caches the vectors of texts (vecs[i] is texts[i]'s) in one write.
func (s *Store) Put(texts []string, vecs [][]float32) error {
	if s == nil {
		return nil
	}
	s.load()
	var rec []byte
	for i, t := range texts {
		if len(vecs[i]) > 0 && len(vecs[i]) <= maxDim {
			rec = appendRecord(rec, t, vecs[i])
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off {
		return fmt.Errorf("embed cache: %s is not a regular file: nothing cached", s.path)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("embed cache: %w", err)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if s.size+int64(len(rec)) > MaxPack {
		flags, s.size = os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0
	}
	f, err := platform.OpenRegular(s.path, flags, 0o600)
	if err != nil {
		return fmt.Errorf("embed cache: %w", err)
	}
	_, werr := f.Write(rec)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("embed cache: write %s: %w", s.path, err)
	}
	s.size += int64(len(rec))
	for i, t := range texts {
		s.vecs[sha256.Sum256([]byte(t))] = slices.Clone(vecs[i])
	}
	return nil
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
			_ = s.Put(part, vecs) // a full disk costs the cache, not the build
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
