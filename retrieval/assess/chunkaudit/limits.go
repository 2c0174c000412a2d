package chunkaudit

import "strings"

// Limit is an embedding model's input limit: the tokens it reads of one
// text before it cuts the rest.
type Limit struct {
	// Model is the model name as configured.
	Model string `json:"model"`
	// Tokens is the input limit; 0 means the model reads the whole text.
	Tokens int `json:"tokens"`
	// Known is false when the model is not in the table (and no limit was
	// given): nothing can be said about truncation.
	Known bool `json:"known"`
}

// knownLimits are the input limits of the embedding models ragscope knows,
// by model name or name prefix (a trailing "*"). This table is meant to
// move into the provider table once it exists; keep it the only place.
var knownLimits = []struct {
	model  string
	tokens int
}{
	// Cohere v3 embed models read 512 tokens and cut the rest (truncate=END
	// by default).
	{"embed-english-v3.0", 512},
	{"embed-multilingual-v3.0", 512},
	{"embed-english-light-v3.0", 512},
	{"embed-multilingual-light-v3.0", 512},
	// OpenAI: 8191 tokens (cl100k_base) for the 3rd-generation models and ada-002.
	{"text-embedding-3-*", 8191},
	{"text-embedding-ada-002", 8191},
	// Gemini.
	{"gemini-embedding-001", 2048},
	// ragscope's offline embedder reads the whole text.
	{"ragscope-local-*", 0},
}

// LimitFor returns the input limit of model from the table of known models.
func LimitFor(model string) Limit {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimPrefix(m, "models/")
	for _, k := range knownLimits {
		if p, ok := strings.CutSuffix(k.model, "*"); ok && strings.HasPrefix(m, p) || k.model == m {
			return Limit{Model: model, Tokens: k.tokens, Known: true}
		}
	}
	return Limit{Model: model}
}
