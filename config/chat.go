package config

import "errors"

// Chat providers (--chat-provider, RAGSCOPE_CHAT_PROVIDER, [chat]
// provider): auto (app.Table.ResolvedChatProvider picks), or the provider
// of the same name, which answers with Cohere's Chat v2 API or OpenAI's
// (or a compatible server's) chat completions.
const (
	ChatAuto   = EmbedderAuto
	ChatCohere = EmbedderCohere
	ChatOpenAI = EmbedderOpenAI
)

// ParseChatProvider accepts auto, cohere and openai (any case); "" is auto.
func ParseChatProvider(s string) (string, error) {
	if p, ok := parseProvider(s, ChatCohere, ChatOpenAI); ok {
		return p, nil
	}
	return "", errors.New("unknown chat provider: use auto, cohere or openai")
}
