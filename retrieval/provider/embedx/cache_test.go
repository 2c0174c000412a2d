package embedx

import (
	"context"
	"errors"
	"testing"
)

// bad is the provider's invalid-answer error of the tests.
func bad(what string) error { return errors.New("invalid: " + what) }

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := NewCache(2)
	c.Put("a", []float32{1})
	c.Put("b", []float32{2})
	c.Get("a")
	c.Put("c", []float32{3})
	if _, ok := c.Get("b"); ok {
		t.Fatal("b should have been evicted")
	}
	if _, ok := c.Get("a"); !ok || c.Len() != 2 {
		t.Fatal("a should remain")
	}
	var none *Cache
	none.Put("x", nil)
	if _, ok := none.Get("x"); ok {
		t.Fatal("nil cache must cache nothing")
	}
}

func TestEmbedBatchesDedupsAndCaches(t *testing.T) {
	c := NewCache(10)
	var sizes []int
	fetch := func(_ context.Context, b []string) ([][]float32, error) {
		sizes = append(sizes, len(b))
		out := make([][]float32, len(b))
		for i, s := range b {
			out[i] = []float32{float32(len(s))}
		}
		return out, nil
	}
	got, err := Embed(context.Background(), c, "m", []string{"a", "bb", "a", "ccc", "dddd"}, 2, fetch, bad)
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 2 || sizes[0] != 2 || sizes[1] != 2 {
		t.Fatalf("batch sizes %v, want [2 2]", sizes)
	}
	if got[2][0] != 1 || got[4][0] != 4 {
		t.Fatalf("vectors out of order: %v", got)
	}
	got[0][0] = 99 // callers may modify their copies
	if _, err := Embed(context.Background(), c, "m", []string{"a", "dddd"}, 2, fetch, bad); err != nil || len(sizes) != 2 {
		t.Fatalf("cached texts cost a call: %v %v", sizes, err)
	}
	if v, _ := c.Get(Key("m", "a")); v[0] != 1 {
		t.Fatal("a caller's change reached the cache")
	}
}

func TestEmbedShortAnswerIsAnError(t *testing.T) {
	short := func(_ context.Context, b []string) ([][]float32, error) { return nil, nil }
	if _, err := Embed(context.Background(), nil, "m", []string{"a"}, 5, short, bad); err == nil {
		t.Fatal("want an error for zero vectors")
	}
	boom := errors.New("boom")
	fail := func(_ context.Context, b []string) ([][]float32, error) { return nil, boom }
	if _, err := Embed(context.Background(), nil, "m", []string{"a"}, 5, fail, bad); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}
