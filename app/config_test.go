package app

// Tests of the configuration that need the provider table (validation and
// auto-resolution), moved here from package config.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragscope/config"
	"ragscope/retrieval"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestResolvedChatProvider(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"nothing set: no chat model", nil, ""},
		{"cohere key", map[string]string{"COHERE_API_KEY": "k"}, config.ChatCohere},
		{"openai key", map[string]string{"OPENAI_API_KEY": "k"}, config.ChatOpenAI},
		{"local server needs no key", map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"}, config.ChatOpenAI},
		{"api.openai.com without key", map[string]string{"OPENAI_BASE_URL": "https://api.openai.com/v1"}, ""},
		{"both keys: cohere first", map[string]string{"COHERE_API_KEY": "k", "OPENAI_API_KEY": "k"}, config.ChatCohere},
		{"the embedder's provider when it can chat", map[string]string{"COHERE_API_KEY": "k", "OPENAI_API_KEY": "k", "QDRANT_URL": "http://q:6334", "RAGSCOPE_EMBEDDER": "openai"}, config.ChatOpenAI},
		{"the embedder cannot chat (gemini)", map[string]string{"GEMINI_API_KEY": "k", "OPENAI_API_KEY": "k", "QDRANT_URL": "http://q:6334", "RAGSCOPE_EMBEDDER": "gemini"}, config.ChatOpenAI},
		{"the chat model's publisher", map[string]string{"COHERE_API_KEY": "k", "OPENAI_API_KEY": "k", "RAGSCOPE_CHAT_MODEL": "gpt-4.1"}, config.ChatOpenAI},
		{"asked for", map[string]string{"RAGSCOPE_CHAT_PROVIDER": "Cohere"}, config.ChatCohere},
	} {
		cfg, err := config.Load(config.LoadOptions{Providers: Providers().ConfigRows(), Dir: t.TempDir(), LookupEnv: envOf(tc.env)})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := Providers().ResolvedChatProvider(cfg); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	_, err := config.Load(config.LoadOptions{Providers: Providers().ConfigRows(), Dir: t.TempDir(), LookupEnv: envOf(map[string]string{"RAGSCOPE_CHAT_PROVIDER": "gemini"})})
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "RAGSCOPE_CHAT_PROVIDER") || !strings.Contains(err.Error(), "auto, cohere or openai") {
		t.Errorf("bad provider: %v", err)
	}
}

func TestResolvedEmbedderAndValidate(t *testing.T) {
	c := config.Default()
	c.QdrantURL, c.Collection = "http://q:6333", "book"
	if Providers().ResolvedEmbedder(c) != config.EmbedderCohere || Providers().Validate(c) == nil {
		t.Fatal("no key: cohere is asked for and missing")
	}
	c = c.WithKey("openai", "sk")
	if Providers().ResolvedEmbedder(c) != config.EmbedderOpenAI || Providers().Validate(c) != nil || Providers().EmbedderChoice(c) != "" {
		t.Fatalf("OpenAI key only: %s, %v", Providers().ResolvedEmbedder(c), Providers().Validate(c))
	}
	c = c.WithKey("cohere", "co")
	if Providers().ResolvedEmbedder(c) != config.EmbedderCohere || !strings.Contains(Providers().EmbedderChoice(c), "COHERE_API_KEY and OPENAI_API_KEY are all set") {
		t.Fatal("both keys: cohere, and a note saying why")
	}
	c.Embedder = config.EmbedderOpenAI
	c = c.WithKey("openai", "")
	if err := Providers().Validate(c); err == nil || !strings.Contains(err.Error(), "--embedder openai needs OPENAI_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}

func TestModelProvider(t *testing.T) {
	for model, want := range map[string]string{
		"embed-english-v3.0": config.EmbedderCohere, "embed-multilingual-light-v3.0": config.EmbedderCohere,
		"text-embedding-3-small": config.EmbedderOpenAI, "TEXT-EMBEDDING-3-LARGE": config.EmbedderOpenAI, "text-embedding-ada-002": config.EmbedderOpenAI,
		"gemini-embedding-001": config.EmbedderGemini, "models/text-embedding-004": config.EmbedderGemini,
		"nomic-embed-text": "", "": "", "text-embedding-3": "",
	} {
		if got := Providers().ModelProvider(model); got != want {
			t.Errorf("Providers().ModelProvider(%q) = %q, want %q", model, got, want)
		}
	}
}

func TestAutoEmbedderFromModelThenKeysThenBaseURL(t *testing.T) {
	c := config.Default()
	c.QdrantURL, c.Collection = "http://q:6333", "book"
	c = c.WithKey("cohere", "co").WithKey("openai", "sk").WithKey("gemini", "g")
	// The model's publisher wins over the key order, and the note says so.
	c.EmbedModel = "gemini-embedding-001"
	if Providers().ResolvedEmbedder(c) != config.EmbedderGemini || !strings.Contains(Providers().EmbedderChoice(c), "the model gemini-embedding-001 is gemini's") {
		t.Fatalf("model name: %s, %q", Providers().ResolvedEmbedder(c), Providers().EmbedderChoice(c))
	}
	c.EmbedModel = "text-embedding-3-large"
	if Providers().ResolvedEmbedder(c) != config.EmbedderOpenAI {
		t.Fatalf("OpenAI model: %s", Providers().ResolvedEmbedder(c))
	}
	// A model no provider publishes falls back to the keys.
	c.EmbedModel = "nomic-embed-text"
	if Providers().ResolvedEmbedder(c) != config.EmbedderCohere || !strings.Contains(Providers().EmbedderChoice(c), "are all set") {
		t.Fatalf("unknown model: %s", Providers().ResolvedEmbedder(c))
	}
	// No key at all: a base URL picks the provider, and a local
	// OpenAI-compatible server needs no key.
	c = c.WithKey("cohere", "").WithKey("openai", "").WithKey("gemini", "")
	c = c.WithBaseURL("openai", "http://localhost:11434/v1")
	if Providers().ResolvedEmbedder(c) != config.EmbedderOpenAI || Providers().Validate(c) != nil {
		t.Fatalf("local base URL: %s, %v", Providers().ResolvedEmbedder(c), Providers().Validate(c))
	}
	// OpenAI's own API still needs the key.
	c = c.WithBaseURL("openai", "https://api.openai.com/v1")
	if err := Providers().Validate(c); err == nil || !strings.Contains(err.Error(), "needs OPENAI_API_KEY") {
		t.Fatalf("api.openai.com without a key: %v", err)
	}
	c = c.WithBaseURL("openai", "").WithBaseURL("gemini", "http://proxy/gemini")
	if Providers().ResolvedEmbedder(c) != config.EmbedderGemini {
		t.Fatalf("Gemini base URL: %s", Providers().ResolvedEmbedder(c))
	}
}

func TestDefaultsAndBackendChoice(t *testing.T) {
	cfg, err := config.Load(config.LoadOptions{Providers: Providers().ConfigRows(), Dir: t.TempDir(), LookupEnv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Resolved() != config.BackendDemo || cfg.TopK != 5 || cfg.EmbedModel != "embed-english-v3.0" || !cfg.Dedup || cfg.Timeout != 30*time.Second {
		t.Fatalf("defaults = %+v", cfg)
	}
	if err := Providers().Validate(cfg); err != nil {
		t.Fatal(err)
	}
	cfg.DocsDir = "docs"
	if cfg.Resolved() != config.BackendLocal {
		t.Fatal("docs dir should select the local backend")
	}
	cfg.QdrantURL = "localhost:6334"
	if cfg.Resolved() != config.BackendQdrant {
		t.Fatal("QDRANT_URL should select qdrant")
	}
	cfg.Backend = config.BackendDemo
	if cfg.Resolved() != config.BackendDemo {
		t.Fatal("an explicit backend wins")
	}
}

func TestAliases(t *testing.T) {
	cfg, err := config.Load(config.LoadOptions{Providers: Providers().ConfigRows(), Dir: t.TempDir(), LookupEnv: envOf(map[string]string{
		"COLLECTION_NAME": "book_embeddings", "CO_API_KEY": "k", "QDRANT_URL": "localhost",
	})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Collection != "book_embeddings" || cfg.Key("cohere").Reveal() != "k" {
		t.Fatalf("aliases not read: %+v", cfg)
	}
	if err := Providers().Validate(cfg); err != nil {
		t.Fatal(err)
	}
}

func TestValidateMessages(t *testing.T) {
	cfg := config.Default()
	cfg.QdrantURL = "https://x:6333"
	cfg.TopK = 0
	cfg.Threshold = 2
	cfg.SlugStyle = "kebab"
	cfg.Mapping = map[string][]string{"body": {"x"}}
	err := Providers().Validate(cfg)
	if !errors.Is(err, retrieval.ErrConfig) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"QDRANT_COLLECTION", "COHERE_API_KEY", "top_k must be between 1 and 100", "threshold must be between", "slug style: use", "mapping.body"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %s", want, err)
		}
	}
	cfg = config.Default()
	cfg.Backend = config.BackendLocal
	cfg.IndexFile, cfg.DocsDir = "a", "b"
	if err := Providers().Validate(cfg); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("index+docs: %v", err)
	}
}

func TestRerankSettings(t *testing.T) {
	cfg, err := config.Load(config.LoadOptions{Providers: Providers().ConfigRows(), Dir: t.TempDir(), LookupEnv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RerankModel != "" || cfg.RerankCandidates != retrieval.DefaultRerankCandidates || cfg.RerankThreshold != 0 {
		t.Fatalf("defaults: %q %d %v", cfg.RerankModel, cfg.RerankCandidates, cfg.RerankThreshold)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, config.DefaultFileName), []byte("[rerank]\nmodel = \"bm25\"\ncandidates = 3\nthreshold = 0.2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = config.Load(config.LoadOptions{Providers: Providers().ConfigRows(), Dir: dir, LookupEnv: envOf(map[string]string{"RAGSCOPE_RERANK_CANDIDATES": "8"})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RerankModel != "bm25" || cfg.RerankCandidates != 8 || cfg.RerankThreshold != 0.2 {
		t.Fatalf("file + env: %q %d %v", cfg.RerankModel, cfg.RerankCandidates, cfg.RerankThreshold)
	}
	if err := Providers().Validate(cfg); err != nil {
		t.Fatalf("bm25 needs no key: %v", err)
	}
	cfg, err = config.Load(config.LoadOptions{Providers: Providers().ConfigRows(), Dir: t.TempDir(), LookupEnv: envOf(map[string]string{"RAGSCOPE_RERANK_MODEL": "rerank-v3.5"})})
	if err != nil {
		t.Fatal(err)
	}
	if err := Providers().Validate(cfg); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "COHERE_API_KEY") || !strings.Contains(err.Error(), "bm25") {
		t.Fatalf("a Cohere rerank model without a key: %v", err)
	}
	for _, bad := range []config.Config{{RerankCandidates: 0}, {RerankCandidates: 101}, {RerankCandidates: 4, RerankThreshold: 2}} {
		c := config.Default()
		c.RerankCandidates, c.RerankThreshold = bad.RerankCandidates, bad.RerankThreshold
		if err := Providers().Validate(c); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "rerank") {
			t.Errorf("%d / %v: %v", bad.RerankCandidates, bad.RerankThreshold, err)
		}
	}
	if _, err := config.Load(config.LoadOptions{Providers: Providers().ConfigRows(), Dir: t.TempDir(), LookupEnv: envOf(map[string]string{"RAGSCOPE_RERANK_CANDIDATES": "many"})}); !errors.Is(err, retrieval.ErrConfig) {
		t.Fatalf("unparsable candidates: %v", err)
	}
}
