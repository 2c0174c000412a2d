package retrieval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// BenchmarkPostProcess100 measures threshold, dedup, URLs and context
// assembly for top_k=100 (budget: under 1 ms per query).
func BenchmarkPostProcess100(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("robot joint link sensor camera lidar node topic service action launch param urdf xacro gazebo world physics isaac policy reward nav2 costmap slam odometry planner controller torque")
	scored := make([]ScoredChunk, 100)
	for i := range scored {
		var sb strings.Builder
		for w := 0; w < 180; w++ {
			sb.WriteString(words[rng.Intn(len(words))])
			sb.WriteByte(' ')
		}
		scored[i] = ScoredChunk{Score: rng.Float64(), Chunk: Chunk{
			ID: fmt.Sprintf("docs/m%d/p%d.md#%d", i%4, i%20, i), Text: sb.String(),
			DocPath: fmt.Sprintf("docs/module-%d/%02d-page-%d.md", i%4, i%20, i%20), Title: "Page", Section: fmt.Sprintf("1.%d Section & Title", i),
			ChunkIndex: IntPtr(i % 7), ContentHash: fmt.Sprintf("%x", i),
		}}
	}
	q := Query{Question: "q", TopK: 100, Threshold: 0.2}
	urls := URLBuilder{DocsBase: "https://me.github.io/book/docs/"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var res Result
		PostProcess(scored, q, urls, &res)
	}
}
