// Package embedx holds what every provider (embedder, reranker, chat)
// shares: the LRU cache of question vectors, the batching of texts at a
// provider's limit, the one check every vector passes (CheckVector), the
// read bounds of every response (Client, Limits), and the error class
// rule (Error).
package embedx

import (
	"container/list"
	"context"
	"fmt"
	"sync"
)

// Cache is a small least-recently-used cache of vectors keyed by model and
// text. It is safe for concurrent use; a nil *Cache caches nothing.
type Cache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recently used; values are *lruEntry
	items map[string]*list.Element
}

type lruEntry struct {
	key string
	vec []float32
}

// NewCache returns a cache of at most max vectors; nil (no caching) when
// max <= 0.
func NewCache(max int) *Cache {
	if max <= 0 {
		return nil
	}
	return &Cache{max: max, order: list.New(), items: make(map[string]*list.Element, max)}
}

// Key is the cache key of text embedded by model.
func Key(model, text string) string { return model + "\x00" + text }

// Get returns a copy of the cached vector, so callers may modify it.
func (c *Cache) Get(key string) ([]float32, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	v := el.Value.(*lruEntry).vec
	return append([]float32(nil), v...), true
}

// Put stores a copy of vec under key, evicting the least recently used.
func (c *Cache) Put(key string, vec []float32) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*lruEntry).vec = append([]float32(nil), vec...)
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&lruEntry{key: key, vec: append([]float32(nil), vec...)})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.items, old.Value.(*lruEntry).key)
	}
}

// Len is the number of cached vectors.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Embed returns one vector per text, in order: cached texts cost no call,
// repeated texts are fetched once, and the rest go to fetch in batches of at
// most maxBatch (one call per batch). fetch must return one vector per text
// of its batch; Embed checks it, so a server that answers short is an error.
// Every vector fetched must pass CheckVector (no NaN or infinite values,
// not all zeros) before it is cached or returned; otherwise Embed returns
// invalid(what is wrong), the provider's "answered with an invalid
// response" error.
func Embed(ctx context.Context, c *Cache, model string, texts []string, maxBatch int, fetch func(ctx context.Context, batch []string) ([][]float32, error), invalid func(what string) error) ([][]float32, error) {
	if maxBatch <= 0 {
		maxBatch = 1
	}
	out := make([][]float32, len(texts))
	var missing []string            // distinct texts to fetch, in first-seen order
	where := make(map[string][]int) // text -> positions in out
	for i, t := range texts {
		if v, ok := c.Get(Key(model, t)); ok {
			out[i] = v
			continue
		}
		if _, seen := where[t]; !seen {
			missing = append(missing, t)
		}
		where[t] = append(where[t], i)
	}
	for start := 0; start < len(missing); start += maxBatch {
		batch := missing[start:min(start+maxBatch, len(missing))]
		vecs, err := fetch(ctx, batch)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(batch) {
			return nil, invalid(fmt.Sprintf("%d embeddings for %d texts", len(vecs), len(batch)))
		}
		for _, v := range vecs {
			if what := CheckVector(v); what != "" {
				return nil, invalid(what)
			}
		}
		for j, t := range batch {
			c.Put(Key(model, t), vecs[j])
			for n, i := range where[t] {
				if n == 0 {
					out[i] = vecs[j]
				} else {
					out[i] = append([]float32(nil), vecs[j]...)
				}
			}
		}
	}
	return out, nil
}
