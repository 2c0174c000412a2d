package qdranttest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval/provider/bm25"
)

// scanSparse is the reference sparse search: every point scored over its
// whole vector, the idf of each query index counted from every point,
// as Qdrant documents it.
func scanSparse(c Collection, name string, q bm25.Vector, idf bool, keep func(Point) bool) []idScore {
	n, df := 0, map[uint32]int{}
	for _, p := range c.Points {
		v := p.Sparse[name]
		if v.Len() == 0 {
			continue
		}
		n++
		for _, idx := range v.Indices {
			df[idx]++
		}
	}
	weights := map[uint32]float64{}
	for i, idx := range q.Indices {
		w := float64(q.Values[i])
		if idf {
			d := float64(df[idx])
			w *= math.Log((float64(n)-d+0.5)/(d+0.5) + 1)
		}
		weights[idx] += w
	}
	var out []idScore
	for _, p := range c.Points {
		if p.Unreachable || !keep(p) {
			continue
		}
		v := p.Sparse[name]
		var sum float64
		hit := false
		for i, idx := range v.Indices {
			if w, ok := weights[idx]; ok {
				sum += w * float64(v.Values[i])
				hit = true
			}
		}
		if hit {
			out = append(out, idScore{p.ID, float64(float32(sum))})
		}
	}
	slices.SortStableFunc(out, func(a, b idScore) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return int(a.id) - int(b.id)
	})
	return out
}

func randomSparse(r *rand.Rand, vocab int) bm25.Vector {
	var v bm25.Vector
	for _, idx := range r.Perm(vocab)[:r.IntN(6)] {
		v.Indices = append(v.Indices, uint32(idx*7919))
		v.Values = append(v.Values, float32(r.IntN(8)+1)/4)
	}
	return v
}

// TestSparseIndexMatchesScan: on random collections (sparse vectors of
// a small vocabulary, some points without one, some unreachable, a
// payload filter), the inverted index returns the same points with the
// same scores, in the same order, as a scan of every point.
func TestSparseIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 42))
	for round := range 20 {
		mod := qc.Modifier_Idf
		if round%4 == 3 {
			mod = qc.Modifier_None
		}
		coll := Collection{Name: "h", VectorName: "dense", Dim: 2, Sparse: map[string]qc.Modifier{"s": mod}}
		for i := range 40 + r.IntN(80) {
			p := Point{ID: uint64(i + 1), Vector: []float32{1, 0},
				Payload:     map[string]*qc.Value{"even": qc.NewValueBool(i%2 == 0), "tag": qc.NewValueString([]string{"a", "b", "c"}[r.IntN(3)])},
				Unreachable: r.IntN(10) == 0,
			}
			if r.IntN(8) != 0 {
				p.Sparse = map[string]bm25.Vector{"s": randomSparse(r, 30)}
			}
			coll.Points = append(coll.Points, p)
		}
		srv, err := Start(Options{})
		if err != nil {
			t.Fatal(err)
		}
		srv.AddCollection(coll)
		c, err := qc.NewClient(&qc.Config{Host: "127.0.0.1", Port: srv.Port(), SkipCompatibilityCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		for range 10 {
			q := randomSparse(r, 30)
			if q.Len() > 1 && r.IntN(3) == 0 {
				// A repeated query index adds its weights up.
				q.Indices = append(q.Indices, q.Indices[0])
				q.Values = append(q.Values, 0.5)
			}
			req := &qc.QueryPoints{Query: qc.NewQuerySparse(q.Indices, q.Values), Using: qc.PtrOf("s"), Limit: qc.PtrOf(uint64(1000))}
			keep := func(Point) bool { return true }
			if r.IntN(2) == 0 {
				req.Filter = &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword("tag", "a")}}
				keep = func(p Point) bool { return p.Payload["tag"].GetStringValue() == "a" }
			}
			got := query(t, c, req)
			want := scanSparse(coll, "s", q, mod == qc.Modifier_Idf, keep)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, query %v:\ninverted %v\nscan     %v", round, q, got, want)
			}
		}
		c.Close()
		srv.Close()
	}
}

// TestSparseIndexPostings: adding a collection builds, per sparse
// vector, the posting list of each index (the points holding it, in
// point order) and counts the points holding a vector; a search scores
// only the points its query's posting lists name.
func TestSparseIndexPostings(t *testing.T) {
	srv, _ := hybridServer(t, Options{})
	coll, err := srv.collection("h")
	if err != nil {
		t.Fatal(err)
	}
	ix := coll.sparse["bm25"]
	if ix == nil || ix.n != 3 {
		t.Fatalf("index = %+v, want 3 points", ix)
	}
	cat := bm25.Query("cat").Indices[0]
	if got := ix.postings[cat]; !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("postings of cat = %v, want points 0 and 2 (A, C)", got)
	}
	if got := ix.candidates(map[uint32]float64{cat: 1}, len(coll.Points)); !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("candidates of cat = %v, want [0 2]", got)
	}
	if got := ix.candidates(map[uint32]float64{bm25.Query("zebra").Indices[0]: 1}, len(coll.Points)); got == nil || len(got) != 0 {
		t.Fatalf("candidates of zebra = %#v, want none (an empty list: nil would mean every point)", got)
	}
}
