package judge

import (
	"embed"
	"fmt"
	"text/template"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chattask"
)

//go:embed prompts/*.txt
var promptFiles embed.FS

// relevanceFile is the relevance prompt's file; its name carries the
// prompt's version, and the cache key also holds a hash of its text, so
// any edit to it makes earlier judgements misses.
const relevanceFile = "prompts/relevance-v1.txt"

// prompt is a parsed prompt file.
type prompt struct {
	system  string
	user    *template.Template
	version string
}

// loadPrompt reads and parses a prompt file (chattask.LoadPrompt).
func loadPrompt(name string) (prompt, error) {
	p, err := chattask.LoadPrompt(promptFiles, name)
	if err != nil {
		return prompt{}, fmt.Errorf("judge %w", err)
	}
	return prompt{system: p.System, user: p.User, version: p.Version}, nil
}

// passage is what the relevance prompt's user template reads.
type passage struct {
	Question, Title, Section, Text string
}

// render is the prompt of one passage, asking for schema.
func (p prompt) render(in passage, schema *retrieval.Schema) (retrieval.Prompt, error) {
	return chattask.Prompt{System: p.system, User: p.user, Version: p.version}.Render(in, schema)
}

// relevanceSchema is the JSON schema of a relevance judgement.
func relevanceSchema() *retrieval.Schema {
	return &retrieval.Schema{Name: "relevance_grade", JSON: map[string]any{
		"type": "object",
		"properties": map[string]any{
			// No enum or minimum/maximum: not every provider's structured
			// output accepts them on integers; the range is checked when
			// the answer is read (OutOfRange).
			"grade":  map[string]any{"type": "integer", "description": "0, 1, 2 or 3: 0 unrelated, 1 related, 2 partly answers, 3 answers"},
			"reason": map[string]any{"type": "string", "description": "one short sentence"},
		},
		"required":             []any{"grade", "reason"},
		"additionalProperties": false,
	}}
}
