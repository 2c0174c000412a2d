package cohere

import (
	"container/list"
	"sync"
)

// lru is a small least-recently-used cache of vectors keyed by model and
// text. It is safe for concurrent use; a nil *lru caches nothing.
type lru struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recently used; values are *lruEntry
	items map[string]*list.Element
}

type lruEntry struct {
	key string
	vec []float32
}

func newLRU(max int) *lru {
	if max <= 0 {
		return nil
	}
	return &lru{max: max, order: list.New(), items: make(map[string]*list.Element, max)}
}

func cacheKey(model, text string) string { return model + "\x00" + text }

// get returns a copy of the cached vector, so callers may modify it.
func (c *lru) get(key string) ([]float32, bool) {
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

func (c *lru) put(key string, vec []float32) {
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

func (c *lru) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
