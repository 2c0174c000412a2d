package config

import (
	"fmt"
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
func ParseEmbedder(s string) (string, error) { return ProviderNames{}.ParseEmbedder(s) }

// ProviderNames are the provider names --embedder and --chat-provider
// accept besides auto, in the provider table's order. config cannot read
// the table (app.Table.Names gives them, through LoadOptions.Providers);
// a nil list means the built-in providers'.
type ProviderNames struct {
	// Embedders are the names --embedder accepts.
	Embedders []string
	// Chat are the names --chat-provider accepts.
	Chat []string
}

// ParseEmbedder accepts auto and n's embedders (any case); "" is auto.
func (n ProviderNames) ParseEmbedder(s string) (string, error) {
	names := n.Embedders
	if names == nil {
		names = []string{EmbedderCohere, EmbedderOpenAI, EmbedderGemini, EmbedderLocal}
	}
	return parseProvider(s, "embedder", names)
}

// ParseChatProvider accepts auto and n's chat providers (any case); "" is
// auto.
func (n ProviderNames) ParseChatProvider(s string) (string, error) {
	names := n.Chat
	if names == nil {
		names = []string{ChatCohere, ChatOpenAI}
	}
	return parseProvider(s, "chat provider", names)
}

// parseProvider accepts auto ("" too) or one of names, in any case; the
// error names what (an "embedder") and the choices.
func parseProvider(s, what string, names []string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(s))
	if p == "" || p == EmbedderAuto {
		return EmbedderAuto, nil
	}
	if slices.Contains(names, p) {
		return p, nil
	}
	choices := append([]string{EmbedderAuto}, names...)
	return "", fmt.Errorf("unknown %s: use %s or %s", what, strings.Join(choices[:len(choices)-1], ", "), choices[len(choices)-1])
}
