package local

import (
	"context"
	"strings"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
)

// textEmbedder is what the local backend needs of an embedder; it is
// retrieval.Embedder, named here for the constructor hook.
type textEmbedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Name() string
	Dim() int
}

var _ textEmbedder = retrieval.Embedder(nil)

// EmbedderFunc makes an embedder fitted to a corpus: docs are the texts
// that will be indexed (corpus statistics such as IDF come from them). It
// must be deterministic, so that an index loaded from a file embeds queries
// exactly as the index was built.
type EmbedderFunc func(docs []string) retrieval.Embedder

// DefaultEmbedder is the offline embedder of package embed.
func DefaultEmbedder(docs []string) retrieval.Embedder {
	return embed.New(docs)
}

func (f EmbedderFunc) orDefault() EmbedderFunc {
	if f == nil {
		return DefaultEmbedder
	}
	return f
}

// embedText is what the embedder sees of a chunk: the headings above its
// own (page title, then a ### section's ## parent) and then its text, which
// already starts with its own heading line. The headings place a chunk in
// its page, so "What is ROS 2?" finds sections of the page of that title.
func embedText(c *retrieval.Chunk) string {
	text := squeezeCode(c.Text)
	if c.Section == "" || len(c.Breadcrumb) < 2 {
		return text
	}
	return strings.Join(c.Breadcrumb[:len(c.Breadcrumb)-1], " > ") + "\n" + text
}

// squeezeCode keeps each distinct word of a fenced code block once: code
// repeats command names ("ros2 run", "ros2 param", …) that would otherwise
// outweigh the prose around them.
func squeezeCode(text string) string {
	if !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return text
	}
	var b strings.Builder
	inCode := false
	seen := map[string]bool{}
	for _, ln := range strings.Split(text, "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inCode = !inCode
			if inCode {
				clear(seen)
			}
			continue
		}
		if !inCode {
			b.WriteString(ln)
			b.WriteByte('\n')
			continue
		}
		for _, w := range strings.Fields(ln) {
			k := strings.ToLower(w)
			if !seen[k] {
				seen[k] = true
				b.WriteString(w)
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func embedTexts(chunks []retrieval.Chunk) []string {
	out := make([]string, len(chunks))
	for i := range chunks {
		out[i] = embedText(&chunks[i])
	}
	return out
}
