package embed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestFitEmbedMatchesNewAndEmbed checks that FitEmbed fits the same model
// as New and gives, bit for bit, the vectors Embed gives, for a corpus that
// is projected (small), one that is hashed and batched (large) and odd
// documents (empty, stopwords only, digits only, camelCase).
func TestFitEmbedMatchesNewAndEmbed(t *testing.T) {
	large := syntheticDocs(fitBatch+700, 60)
	large[3] = ""
	large[10] = "the of and"
	large[fitBatch+1] = "42 7 1999"
	large[fitBatch+2] = "PointCloud2 nav2 ROS 2 rclpy"
	for _, docs := range [][]string{syntheticDocs(50, 40), large} {
		t.Run(fmt.Sprint(len(docs)), func(t *testing.T) {
			ctx := context.Background()
			want := New(docs)
			wantVecs, err := want.Embed(ctx, docs)
			if err != nil {
				t.Fatal(err)
			}
			last, zero := -1, false
			got, vecs, err := FitEmbed(ctx, docs, func(done int) {
				zero = zero || done == 0
				if done < last || done > len(docs) {
					t.Errorf("progress went from %d to %d of %d", last, done, len(docs))
				}
				last = done
			})
			if err != nil {
				t.Fatal(err)
			}
			if !zero || last != len(docs) {
				t.Errorf("progress ended at %d of %d (0 reported: %v)", last, len(docs), zero)
			}
			dim := got.Dim()
			if len(vecs) != len(docs)*dim {
				t.Fatalf("%d floats for %d docs of %d", len(vecs), len(docs), dim)
			}
			for i, w := range wantVecs {
				g := vecs[i*dim : (i+1)*dim]
				for j := range w {
					if math.Float32bits(g[j]) != math.Float32bits(w[j]) {
						t.Fatalf("doc %d dimension %d: got %v, want %v", i, j, g[j], w[j])
					}
				}
			}
			ws, err := want.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			gs, err := got.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gs, ws) {
				t.Fatalf("fitted state differs from New's (%d vs %d bytes)", len(gs), len(ws))
			}
			q := "how do topics and services differ in ROS 2"
			wq, _ := want.Embed(ctx, []string{q})
			gq, _ := got.Embed(ctx, []string{q})
			for j := range wq[0] {
				if wq[0][j] != gq[0][j] {
					t.Fatalf("query vector differs at %d", j)
				}
			}
		})
	}
}

func TestFitEmbedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := FitEmbed(ctx, syntheticDocs(600, 10), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestLexTableLookup checks the fitting's hash table against the binary
// search a restored table uses: every key finds its row and IDF, keys
// absent (including colliding ones) find none.
func TestLexTableLookup(t *testing.T) {
	keys := []uint64{0, 1, 2, 17, 33, 1 << 40, 1<<40 + 16, 1<<63 + 1}
	tab := &lexTable{keys: keys, idf: make([]float32, len(keys))}
	for j := range keys {
		tab.idf[j] = float32(j) + 0.5
	}
	hashed := *tab
	hashed.hashSlots()
	if len(hashed.slots) < 2*len(keys) {
		t.Fatalf("%d slots for %d keys", len(hashed.slots), len(keys))
	}
	for _, tb := range []*lexTable{tab, &hashed} {
		for j, k := range keys {
			if r, idf := tb.lookup(k); r != int32(j) || idf != tab.idf[j] {
				t.Errorf("key %d (hashed %v): row %d idf %v, want %d %v", k, tb.slots != nil, r, idf, j, tab.idf[j])
			}
		}
		for _, k := range []uint64{3, 16, 32, 1<<40 + 1, 1 << 63} {
			if r, _ := tb.lookup(k); r != -1 {
				t.Errorf("absent key %d (hashed %v): row %d", k, tb.slots != nil, r)
			}
		}
	}
	var none *lexTable
	if r, _ := none.lookup(1); r != -1 {
		t.Errorf("nil table: row %d", r)
	}
}
