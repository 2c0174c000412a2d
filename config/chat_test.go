package config

import (
	"errors"
	"strings"
	"testing"

	"ragscope/retrieval"
)

func TestResolvedChatProvider(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"nothing set: no chat model", nil, ""},
		{"cohere key", map[string]string{"COHERE_API_KEY": "k"}, ChatCohere},
		{"openai key", map[string]string{"OPENAI_API_KEY": "k"}, ChatOpenAI},
		{"local server needs no key", map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"}, ChatOpenAI},
		{"api.openai.com without key", map[string]string{"OPENAI_BASE_URL": "https://api.openai.com/v1"}, ""},
		{"both keys: cohere first", map[string]string{"COHERE_API_KEY": "k", "OPENAI_API_KEY": "k"}, ChatCohere},
		{"the embedder's provider when it can chat", map[string]string{"COHERE_API_KEY": "k", "OPENAI_API_KEY": "k", "QDRANT_URL": "http://q:6334", "RAGSCOPE_EMBEDDER": "openai"}, ChatOpenAI},
		{"the embedder cannot chat (gemini)", map[string]string{"GEMINI_API_KEY": "k", "OPENAI_API_KEY": "k", "QDRANT_URL": "http://q:6334", "RAGSCOPE_EMBEDDER": "gemini"}, ChatOpenAI},
		{"the chat model's publisher", map[string]string{"COHERE_API_KEY": "k", "OPENAI_API_KEY": "k", "RAGSCOPE_CHAT_MODEL": "gpt-4.1"}, ChatOpenAI},
		{"asked for", map[string]string{"RAGSCOPE_CHAT_PROVIDER": "Cohere"}, ChatCohere},
	} {
		cfg, err := Load(LoadOptions{Dir: t.TempDir(), LookupEnv: envOf(tc.env)})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := cfg.ResolvedChatProvider(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	_, err := Load(LoadOptions{Dir: t.TempDir(), LookupEnv: envOf(map[string]string{"RAGSCOPE_CHAT_PROVIDER": "gemini"})})
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "RAGSCOPE_CHAT_PROVIDER") || !strings.Contains(err.Error(), "auto, cohere or openai") {
		t.Errorf("bad provider: %v", err)
	}
}
