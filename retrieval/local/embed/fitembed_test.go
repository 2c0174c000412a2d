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
