package judge

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"ragscope/retrieval"
	"ragscope/retrieval/chatcache"
)

//go:embed prompts/*.txt
var promptFiles embed.FS

// relevanceFile is the relevance prompt's file; its name carries the
// prompt's version, and the cache key also holds a hash of its text, so
// any edit to it makes earlier judgements misses.
const relevanceFile = "prompts/relevance-v1.txt"

// userMark separates a prompt file's system part from its user template.
const userMark = "\n---- user ----\n"

// prompt is a parsed prompt file.
type prompt struct {
	system  string
	user    *template.Template
	version string
}

// loadPrompt reads and parses a prompt file (the files are embedded, so
// an error is a build mistake; tests load every file).
func loadPrompt(name string) (prompt, error) {
	b, err := promptFiles.ReadFile(name)
	if err != nil {
		return prompt{}, fmt.Errorf("judge prompt %s: %w", name, err)
	}
	system, user, ok := strings.Cut(string(b), userMark)
	if !ok {
		return prompt{}, fmt.Errorf("judge prompt %s: no %q line", name, strings.TrimSpace(userMark))
	}
	t, err := template.New(name).Option("missingkey=error").Parse(user)
	if err != nil {
		return prompt{}, fmt.Errorf("judge prompt %s: %w", name, err)
	}
	base := strings.TrimSuffix(strings.TrimPrefix(name, "prompts/"), ".txt")
	return prompt{system: strings.TrimSpace(system), user: t, version: base + "+" + chatcache.Hash(string(b))[:12]}, nil
}

// passage is what the relevance prompt's user template reads.
type passage struct {
	Question, Title, Section, Text string
}

// render is the prompt of one passage, asking for schema.
func (p prompt) render(in passage, schema *retrieval.Schema) (retrieval.Prompt, error) {
	var buf bytes.Buffer
	if err := p.user.Execute(&buf, in); err != nil {
		return retrieval.Prompt{}, fmt.Errorf("judge prompt: %w", err)
	}
	return retrieval.Prompt{Question: strings.TrimSpace(buf.String()), Instruction: p.system, Schema: schema}, nil
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
