package config

import (
	"errors"
	"strings"
)

// Chat providers (--chat-provider, RAGSCOPE_CHAT_PROVIDER, [chat] provider).
const (
	// ChatAuto picks the chat provider (see Config.ResolvedChatProvider).
	ChatAuto = "auto"
	// ChatCohere answers with Cohere's Chat v2 API.
	ChatCohere = "cohere"
	// ChatOpenAI answers with OpenAI's (or a compatible server's) chat
	// completions.
	ChatOpenAI = "openai"
)

// ChatHint says which settings enable answers; every "no chat model"
// message ends with it.
const ChatHint = "set COHERE_API_KEY (Cohere), OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL for a local OpenAI-compatible server such as Ollama (http://localhost:11434/v1, with --chat-model llama3.2); --chat-provider chooses when several are set"

// ParseChatProvider accepts auto, cohere and openai (any case); "" is auto.
func ParseChatProvider(s string) (string, error) {
	switch p := strings.ToLower(strings.TrimSpace(s)); p {
	case "", ChatAuto:
		return ChatAuto, nil
	case ChatCohere, ChatOpenAI:
		return p, nil
	}
	return "", errors.New("unknown chat provider: use auto, cohere or openai")
}

// chatModelProvider names the publisher of a chat model from its name
// (command-* is Cohere's, gpt-* OpenAI's), or "".
func chatModelProvider(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	switch {
	case strings.HasPrefix(m, "command"):
		return ChatCohere
	case strings.HasPrefix(m, "gpt-"):
		return ChatOpenAI
	}
	return ""
}

// canChat reports whether provider p has what it needs to answer: Cohere a
// key; OpenAI a key, or a base URL of a server that needs none.
func (c Config) canChat(p string) bool {
	switch p {
	case ChatCohere:
		return c.CohereAPIKey.IsSet()
	case ChatOpenAI:
		return c.OpenAIAPIKey.IsSet() || (c.OpenAIBaseURL != "" && !c.OpenAINeedsKey())
	}
	return false
}

// ResolvedChatProvider is the provider that answers: the one asked for;
// with auto, the publisher of a --chat-model named by it, else the query
// embedder's provider when it can chat (Qdrant with Cohere or OpenAI),
// else the first whose key is set (Cohere, then OpenAI), else OpenAI when
// OPENAI_BASE_URL names a local server. "" means no chat model is
// configured.
func (c Config) ResolvedChatProvider() string {
	p, _ := ParseChatProvider(c.ChatProvider)
	if p != ChatAuto {
		return p
	}
	if mp := chatModelProvider(c.ChatModel); mp != "" && c.canChat(mp) {
		return mp
	}
	if c.Resolved() == BackendQdrant {
		if e := c.ResolvedEmbedder(); (e == ChatCohere || e == ChatOpenAI) && c.canChat(e) {
			return e
		}
	}
	for _, p := range []string{ChatCohere, ChatOpenAI} {
		if c.canChat(p) {
			return p
		}
	}
	return ""
}
