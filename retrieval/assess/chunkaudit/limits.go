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

// ModelLimit is one embedding model's input limit, by model name or name
// prefix (a trailing "*").
type ModelLimit struct {
	Model  string
	Tokens int
}

// Limits are the input limits of the embedding models ragscope knows,
// from the provider table's rows (app.Table.Limits): the first that
// matches a model wins.
type Limits []ModelLimit

// For returns the input limit of model (any case, a "models/" prefix
// ignored); Known is false when no row names it.
func (l Limits) For(model string) Limit {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimPrefix(m, "models/")
	for _, k := range l {
		if p, ok := strings.CutSuffix(k.Model, "*"); ok && strings.HasPrefix(m, p) || k.Model == m {
			return Limit{Model: model, Tokens: k.Tokens, Known: true}
		}
	}
	return Limit{Model: model}
}
