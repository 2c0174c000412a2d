package config

import (
	"fmt"
	"strings"
)

// Query embedders (--embedder, RAGSCOPE_EMBEDDER, [embedder] provider).
const (
	// EmbedderAuto picks the provider from the keys that are set: Cohere
	// when COHERE_API_KEY is set, else OpenAI when OPENAI_API_KEY is set.
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
	switch e := strings.ToLower(strings.TrimSpace(s)); e {
	case "", EmbedderAuto:
		return EmbedderAuto, nil
	case EmbedderCohere, EmbedderOpenAI, EmbedderGemini, EmbedderLocal:
		return e, nil
	}
	return "", fmt.Errorf("unknown embedder %q: use auto, cohere, openai, gemini or local", s)
}

// ResolvedEmbedder is the provider auto picks for a Qdrant collection: the
// requested one, else Cohere when its key is set (also when both keys are
// set; EmbedderChoice says so), else OpenAI when its key is set, else Cohere.
func (c Config) ResolvedEmbedder() string {
	e, _ := ParseEmbedder(c.Embedder)
	if e != EmbedderAuto {
		return e
	}
	if !c.CohereAPIKey.IsSet() && c.OpenAIAPIKey.IsSet() {
		return EmbedderOpenAI
	}
	return EmbedderCohere
}

// EmbedderChoice explains an auto choice when it was not obvious (more than
// one provider key set); "" otherwise.
func (c Config) EmbedderChoice() string {
	e, _ := ParseEmbedder(c.Embedder)
	if e != EmbedderAuto || !c.CohereAPIKey.IsSet() || !c.OpenAIAPIKey.IsSet() {
		return ""
	}
	return "embedder: cohere chosen because COHERE_API_KEY and OPENAI_API_KEY are both set (pass --embedder openai to use OpenAI)"
}
