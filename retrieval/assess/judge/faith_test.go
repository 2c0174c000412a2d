package judge

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval/provider/chatcache"
	"ragscope/retrieval/provider/openai"
	"ragscope/retrieval/provider/openai/openaitest"
)

func TestParseFaithfulnessTolerant(t *testing.T) {
	f := parseFaithfulness("```json\n" + `{"Claims": [
		{"claim": "ROS 2 uses DDS.", "supported": true, "sources": [1, "Source 2", "[3]"], "reason": "Source 1 says so."},
		{"claim": "Nodes run on GPUs.", "supported": "no", "sources": [], "reason": "not in the sources"},
		{"claim": "Topics are typed.", "supported": "maybe"},
		{"claim": "", "supported": true}
	]}` + "\n```")
	if f.Status != Judged || len(f.Claims) != 3 || f.Judged != 2 || f.Supported != 1 || f.Share == nil || *f.Share != 0.5 {
		t.Fatalf("%+v", f)
	}
	if got := f.Claims[0].Sources; len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("sources %v", got)
	}
	if f.Claims[2].Supported != nil {
		t.Fatal("a verdict made up for 'maybe'")
	}
	if u := f.Unsupported(); len(u) != 1 || u[0].Text != "Nodes run on GPUs." {
		t.Fatalf("unsupported %+v", u)
	}
	for _, in := range []string{`All claims are supported.`, `{"claims": "all"}`, `{"verdict": true}`} {
		if f := parseFaithfulness(in); f.Status != Invalid || f.Share != nil {
			t.Fatalf("%q: %+v", in, f)
		}
	}
	// No claims at all (an answer that only declines): judged, no share.
	if f := parseFaithfulness(`{"claims": []}`); f.Status != Judged || f.Share != nil || f.Judged != 0 {
		t.Fatalf("%+v", f)
	}
}

func TestFaithfulnessWithSchemaAndCache(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	var prompts []string
	srv.Structured(func(r openaitest.ChatRequest) string {
		prompts = append(prompts, r.Messages[len(r.Messages)-1].Content)
		return `{"claims": [{"claim": "A", "supported": true, "sources": [1], "reason": "r"}, {"claim": "B", "supported": false, "sources": [], "reason": "r"}]}`
	})
	gen, _ := openai.NewChat(openai.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL})
	j, err := New(gen, Options{Cache: chatcache.Open(filepath.Join(t.TempDir(), "judge")), Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	items := []FaithItem{{Question: "q", Answer: "A [Source 1]. B.", Sources: []Source{{1, "a text"}, {2, "b text"}}}}
	fs, st, err := j.Faithfulness(context.Background(), items, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Calls != 1 || fs[0].Status != Judged || *fs[0].Share != 0.5 || len(fs[0].Unsupported()) != 1 {
		t.Fatalf("%+v %+v", fs, st)
	}
	if !strings.Contains(prompts[0], "Answer:\nA [Source 1]. B.") || !strings.Contains(prompts[0], "[Source 2]\nb text") {
		t.Fatalf("prompt %q", prompts[0])
	}
	if rf := srv.LastChat().ResponseFormat; rf == nil || rf.JSONSchema.Name != "answer_claims" {
		t.Fatalf("schema %+v", rf)
	}
	fs, st, _ = j.Faithfulness(context.Background(), items, nil)
	if st.Calls != 0 || !fs[0].Cached || *fs[0].Share != 0.5 {
		t.Fatalf("re-run %+v %+v", fs, st)
	}
	// Another answer, or other sources: a miss.
	if j.PendingFaithfulness([]FaithItem{{Question: "q", Answer: "A.", Sources: items[0].Sources}, {Question: "q", Answer: items[0].Answer, Sources: []Source{{1, "a text!"}}}}) != 2 {
		t.Fatal("cache key misses a part")
	}
}
