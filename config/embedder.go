package config

import (
	"errors"
	"fmt"
	"strings"
)

// Query embedders (--embedder, RAGSCOPE_EMBEDDER, [embedder] provider).
const (
	// EmbedderAuto picks the provider from the model's name, else from the
	// keys and base URLs that are set (see Config.ResolvedEmbedder).
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

// ModelProvider names the provider that publishes model, from its name:
// embed-* is Cohere's, text-embedding-3-* and text-embedding-ada-002 are
// OpenAI's, gemini-embedding-* and text-embedding-004 are Gemini's. Other
// names (a local server's nomic-embed-text, say) give "".
func ModelProvider(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:] // "models/text-embedding-004"
	}
	switch {
	case strings.HasPrefix(m, "embed-"):
		return EmbedderCohere
	case strings.HasPrefix(m, "text-embedding-3-"), m == "text-embedding-ada-002":
		return EmbedderOpenAI
	case strings.HasPrefix(m, "gemini-embedding-"), m == "text-embedding-004":
		return EmbedderGemini
	}
	return ""
}

// ResolvedEmbedder is the provider that embeds questions for a Qdrant
// collection: the one asked for; with auto, the publisher of a model named
// with --model (the default model does not count), else the first provider
// whose key is set (Cohere, OpenAI, Gemini), else the one whose base URL is
// set (a local OpenAI-compatible server needs no key), else Cohere.
func (c Config) ResolvedEmbedder() string {
	e, _ := c.resolveEmbedder()
	return e
}

// resolveEmbedder is ResolvedEmbedder with the reason for an auto choice.
func (c Config) resolveEmbedder() (provider, why string) {
	e, _ := ParseEmbedder(c.Embedder)
	if e != EmbedderAuto {
		return e, ""
	}
	if c.EmbedModel != DefaultEmbedModel {
		if p := ModelProvider(c.EmbedModel); p != "" {
			return p, fmt.Sprintf("the model %s is %s's", c.EmbedModel, p)
		}
	}
	switch {
	case c.CohereAPIKey.IsSet():
		return EmbedderCohere, "COHERE_API_KEY is set"
	case c.OpenAIAPIKey.IsSet():
		return EmbedderOpenAI, "OPENAI_API_KEY is set"
	case c.GeminiAPIKey.IsSet():
		return EmbedderGemini, "GEMINI_API_KEY is set"
	case c.OpenAIBaseURL != "":
		return EmbedderOpenAI, "OPENAI_BASE_URL is set"
	case c.GeminiBaseURL != "":
		return EmbedderGemini, "GEMINI_BASE_URL is set"
	}
	return EmbedderCohere, ""
}

// OpenAINeedsKey reports whether the OpenAI embedder needs an API key: it
// does for OpenAI's own API (no base URL, or api.openai.com); a local
// OpenAI-compatible server (Ollama, vLLM, LM Studio, TEI) does not.
func (c Config) OpenAINeedsKey() bool {
	b := strings.ToLower(strings.TrimSpace(c.OpenAIBaseURL))
	return b == "" || strings.Contains(b, "://api.openai.com")
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
	p, why := c.resolveEmbedder()
	if ModelProvider(c.EmbedModel) == p && c.EmbedModel != DefaultEmbedModel {
		return fmt.Sprintf("embedder: %s chosen because %s (%s are all set; pass --embedder to choose)", p, why, strings.Join(set, " and "))
	}
	return fmt.Sprintf("embedder: %s chosen because %s are all set (auto prefers cohere, then openai, then gemini; pass --embedder to choose)", p, strings.Join(set, " and "))
}
