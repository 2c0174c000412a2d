package config

import (
	"errors"
	"slices"
	"strings"
)

// Query embedders (--embedder, RAGSCOPE_EMBEDDER, [embedder] provider).
const (
	// EmbedderAuto picks the provider from the model's name, else from the
	// keys and base URLs that are set (see app.Table.ResolveEmbedder).
	EmbedderAuto = "auto"
	// EmbedderCohere embeds with Cohere's embed API.
	EmbedderCohere = "cohere"
	// EmbedderOpenAI embeds with OpenAI's (or a compatible server's)
	// /v1/embeddings.
	EmbedderOpenAI = "openai"
	// EmbedderGemini embeds with Google's Gemini API.
	EmbedderGemini = "gemini"
	// EmbedderLocal is the offline embedder of local indexes.
	EmbedderLocal = "local"
)

// ParseEmbedder accepts auto, cohere, openai, gemini and local (any case);
// "" is auto.
func ParseEmbedder(s string) (string, error) {
	if e, ok := parseProvider(s, EmbedderCohere, EmbedderOpenAI, EmbedderGemini, EmbedderLocal); ok {
		return e, nil
	}
	return "", errors.New("unknown embedder: use auto, cohere, openai, gemini or local")
}

// parseProvider accepts auto ("" too) or one of names, in any case.
func parseProvider(s string, names ...string) (string, bool) {
	p := strings.ToLower(strings.TrimSpace(s))
	if p == "" || p == EmbedderAuto {
		return EmbedderAuto, true
	}
	return p, slices.Contains(names, p)
}
