package config

import (
	"errors"
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
	return "", errors.New("unknown embedder: use auto, cohere, openai, gemini or local")
}

// ResolvedEmbedder is the provider auto picks for a Qdrant collection: the
// requested one, else Cohere when its key is set (also when both keys are
// set; EmbedderChoice says so), else OpenAI, else Gemini, else Cohere.
func (c Config) ResolvedEmbedder() string {
	e, _ := ParseEmbedder(c.Embedder)
	if e != EmbedderAuto {
		return e
	}
	switch {
	case c.CohereAPIKey.IsSet():
		return EmbedderCohere
	case c.OpenAIAPIKey.IsSet():
		return EmbedderOpenAI
	case c.GeminiAPIKey.IsSet():
		return EmbedderGemini
	}
	return EmbedderCohere
}

// EmbedderChoice explains an auto choice when it was not obvious (more than
// one provider key set); "" otherwise.
func (c Config) EmbedderChoice() string {
	e, _ := ParseEmbedder(c.Embedder)
	if e != EmbedderAuto {
		return ""
	}
	var set []string
	for _, k := range []struct {
		name string
		ok   bool
	}{{"COHERE_API_KEY", c.CohereAPIKey.IsSet()}, {"OPENAI_API_KEY", c.OpenAIAPIKey.IsSet()}, {"GEMINI_API_KEY", c.GeminiAPIKey.IsSet()}} {
		if k.ok {
			set = append(set, k.name)
		}
	}
	if len(set) < 2 {
		return ""
	}
	return fmt.Sprintf("embedder: %s chosen because %s are all set (auto prefers cohere, then openai, then gemini; pass --embedder to choose)", c.ResolvedEmbedder(), strings.Join(set, " and "))
}
