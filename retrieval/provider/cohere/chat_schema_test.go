package cohere_test

import (
	"context"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere/coheretest"
)

func TestChatSendsSchemaAsJSONObjectFormat(t *testing.T) {
	srv := coheretest.NewServer("k-123")
	defer srv.Close()
	c := newChat(t, srv, 0)
	schema := &retrieval.Schema{Name: "grade", JSON: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"grade":  map[string]any{"type": "integer", "minimum": 0, "maximum": 3},
			"reason": map[string]any{"type": "string"},
		},
		"required": []any{"grade", "reason"},
	}}
	srv.Structured(func(r coheretest.ChatRequest) string {
		return `{"grade": 2, "reason": "` + r.Messages[1].Content + `"}`
	})
	var text string
	if err := c.Stream(context.Background(), retrieval.Prompt{Instruction: "grade", Question: "q1", Schema: schema}, func(d retrieval.Delta) { text += d.Text }); err != nil {
		t.Fatal(err)
	}
	rf := srv.LastChat().ResponseFormat
	if rf == nil || rf.Type != "json_object" || rf.JSONSchema["type"] != "object" {
		t.Fatalf("response_format %+v", rf)
	}
	if text != `{"grade": 2, "reason": "q1"}` {
		t.Fatalf("answer %q", text)
	}
	text = ""
	if err := c.Stream(context.Background(), retrieval.NewPrompt(answerResult()), func(d retrieval.Delta) { text += d.Text }); err != nil {
		t.Fatal(err)
	}
	if srv.LastChat().ResponseFormat != nil {
		t.Fatalf("response_format sent without a schema")
	}
}
