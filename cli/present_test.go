package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"ragscope/present"
	"ragscope/retrieval"
)

// The text output labels each hit with the same "title - section" and
// place as the explorer (both come from present).
func TestQueryLabelsMatchTheExplorer(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "--json", "What is ROS 2?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	code, text, errs := run(t, nil, "", "query", "What is ROS 2?")
	if code != ExitOK || len(doc.Results) == 0 {
		t.Fatalf("exit %d, %d hits: %s", code, len(doc.Results), errs)
	}
	for _, h := range doc.Results {
		c := retrieval.Chunk{Title: h.Title, Section: h.Section, DocPath: h.DocPath, Module: h.Module, Chapter: h.Chapter,
			ChunkIndex: h.ChunkIndex, TotalChunks: h.TotalChunks}
		if !strings.Contains(text, "] "+present.Title(&c)+"\n") || !strings.Contains(text, present.Place(&c)) {
			t.Errorf("hit %d: %q / %q not in the text output:\n%s", h.Rank, present.Title(&c), present.Place(&c), text)
		}
	}
}
