package local

import (
	"context"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

func TestSqueezeCodeKeepsProseAndDistinctCodeWords(t *testing.T) {
	in := "Run the node.\n\n```bash\nros2 run pkg a\nros2 run pkg b\nros2 param list\n```\n\nThen check."
	got := squeezeCode(in)
	if strings.Count(got, "ros2") != 1 || strings.Count(got, "run") != 1 {
		t.Errorf("code words repeated:\n%s", got)
	}
	for _, want := range []string{"Run the node.", "Then check.", "param", "list", "a", "b"} {
		if !strings.Contains(got, want) {
			t.Errorf("lost %q:\n%s", want, got)
		}
	}
	if squeezeCode("no code here") != "no code here" {
		t.Error("prose changed")
	}
}

// The README's first example must find the page that answers it.
func TestDemoWhatIsROS2(t *testing.T) {
	ix, corpus, err := OpenDemo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := &retrieval.Pipeline{Embedder: corpus.Embedder, Store: ix, URLs: corpus.URLBuilder(docusaurus.SlugGitHub)}
	res, err := p.Retrieve(context.Background(), retrieval.Query{Question: "What is ROS 2?", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Rank <= 3 && h.Chunk.Chapter == "what-is-ros2" {
			return
		}
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, h.Chunk.DocPath+" "+h.Chunk.Section)
	}
	t.Fatalf("the what-is-ros2 page is not in the top 3:\n%s", strings.Join(got, "\n"))
}
