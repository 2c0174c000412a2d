package openai

import (
	"context"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/openai/openaitest"
)

// gradeSchema is a small schema of the judge's kind.
func gradeSchema() *retrieval.Schema {
	return &retrieval.Schema{Name: "grade", JSON: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"grade":  map[string]any{"type": "integer", "enum": []any{0, 1, 2, 3}},
			"reason": map[string]any{"type": "string"},
		},
		"required": []any{"grade", "reason"}, "additionalProperties": false,
	}}
}

func streamText(t *testing.T, g retrieval.Generator, p retrieval.Prompt) string {
	t.Helper()
	var text string
	if err := g.Stream(context.Background(), p, func(d retrieval.Delta) { text += d.Text }); err != nil {
		t.Fatal(err)
	}
	return text
}

func TestChatSendsSchemaAsResponseFormat(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	c := newTestChat(t, srv, "", 0)
	text := streamText(t, c, retrieval.Prompt{Instruction: "grade", Question: "q", Schema: gradeSchema()})
	rf := srv.LastChat().ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil || rf.JSONSchema.Name != "grade" || !rf.JSONSchema.Strict {
		t.Fatalf("response_format %+v", rf)
	}
	if props, _ := srv.LastChat().Schema()["properties"].(map[string]any); props["grade"] == nil {
		t.Fatalf("schema not sent: %v", srv.LastChat().Schema())
	}
	// The fake honours the schema: its smallest instance.
	if text != `{"grade":0,"reason":""}` {
		t.Fatalf("answer %q", text)
	}
	// Without a schema, no response_format.
	streamText(t, c, retrieval.NewPrompt(chatResult()))
	if srv.LastChat().ResponseFormat != nil {
		t.Fatalf("response_format sent without a schema: %+v", srv.LastChat().ResponseFormat)
	}
}
