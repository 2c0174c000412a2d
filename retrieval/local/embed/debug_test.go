package embed

import (
	"context"
	"fmt"
	"os"
	"testing"
)

func TestDebugScores(t *testing.T) {
	if os.Getenv("RAGSCOPE_EMBED_DEBUG") == "" {
		t.Skip()
	}
	docs, queries := smallCorpus()
	if os.Getenv("RAGSCOPE_EMBED_DEBUG") == "dev" {
		docs, queries = devCorpus()
	}
	m := New(docs)
	dv, _ := m.Embed(context.Background(), docs)
	for _, q := range queries {
		qv, _ := m.Embed(context.Background(), []string{q.q})
		sc := make([]float32, len(docs))
		for i := range docs {
			sc[i] = dot(qv[0], dv[i])
		}
		o := order(sc)
		part := func(d int) string {
			g := dot(qv[0][:gloveDim], dv[d][:gloveDim]) * 2
			s := dot(qv[0][gloveDim:], dv[d][gloveDim:]) * 2
			return fmt.Sprintf("d%d tot %.2f g %.2f s %.2f", d, sc[d], g, s)
		}
		mark := "  "
		if o[0] != q.doc {
			mark = "XX"
		}
		fmt.Printf("%s %-70.70s | right %s | top %s | 2nd %s\n", mark, q.q, part(q.doc), part(o[0]), part(o[1]))
	}
}
