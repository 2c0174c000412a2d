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
