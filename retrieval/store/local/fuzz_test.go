package local

import (
	"strings"
	"testing"
)

// FuzzChunkMarkdown checks that no input panics the chunker and that its
// invariants hold: chunks within the size limit, numbered in order.
func FuzzChunkMarkdown(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: x\n---\n# T\n\n## A {#a}\n\ntext\n",
		"---\ntitle: [\n---\n```\n## x\n",
		"## 🚀\n\n~~~~\n## no\n~~~\n## ???\n\n" + strings.Repeat("word ", 400),
		"\xff\xfe## bad utf8\x00",
		"####### seven\n# \n##\n###   ###\n",
		"---\n---\n",
		"---",
	} {
		f.Add(s, 200)
	}
	f.Fuzz(func(t *testing.T, src string, max int) {
		opts := ChunkOptions{MaxChars: max % 5000}
		cs, err := ChunkMarkdown("docs/m/01-p.md", []byte(src), opts)
		if err != nil {
			return
		}
		limit := opts.maxChars()
		for i, c := range cs {
			if n := runeLen(c.Text); n > limit {
				// A heading longer than half the limit may push a piece over it.
				if n > limit+runeLen(strings.SplitN(c.Text, "\n", 2)[0])+2 {
					t.Errorf("chunk %d has %d chars, limit %d", i, n, limit)
				}
			}
			if *c.ChunkIndex != i || *c.TotalChunks != len(cs) || strings.TrimSpace(c.Text) == "" {
				t.Errorf("chunk %d: index %d total %d text %q", i, *c.ChunkIndex, *c.TotalChunks, c.Text)
			}
		}
	})
}
