package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval"
)

func TestParseEmbedder(t *testing.T) {
	for in, want := range map[string]string{"": "auto", "AUTO": "auto", " openai ": "openai", "cohere": "cohere", "gemini": "gemini", "local": "local"} {
		if got, err := ParseEmbedder(in); err != nil || got != want {
			t.Errorf("ParseEmbedder(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseEmbedder("voyage"); err == nil || !strings.Contains(err.Error(), "use auto, cohere, openai") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmbedderSettingsFromFileAndEnv(t *testing.T) {
	dir := t.TempDir()
	toml := "[embedder]\nprovider = \"openai\"\nmodel = \"text-embedding-3-large\"\ndimensions = 1024\n[openai]\napi_key = \"sk-file\"\nbase_url = \"http://u:p@proxy/v1\"\n[gemini]\napi_key = \"g-file\"\n"
	if err := os.WriteFile(filepath.Join(dir, DefaultFileName), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(LoadOptions{Dir: dir, LookupEnv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Embedder != "openai" || cfg.EmbedModel != "text-embedding-3-large" || cfg.EmbedDimensions != 1024 ||
		cfg.OpenAIAPIKey.Reveal() != "sk-file" || cfg.GeminiAPIKey.Reveal() != "g-file" {
		t.Fatalf("file settings: %+v", cfg)
	}
	b, _ := json.Marshal(cfg.Redacted())
	if strings.Contains(string(b), "sk-file") || strings.Contains(string(b), "g-file") || strings.Contains(string(b), "u:p@") {
		t.Fatalf("secrets in %s", b)
	}
	cfg, err = Load(LoadOptions{Dir: dir, LookupEnv: envOf(map[string]string{
		"RAGSCOPE_EMBEDDER": "cohere", "RAGSCOPE_EMBED_DIMENSIONS": "512", "OPENAI_API_KEY": "sk-env",
		"OPENAI_BASE_URL": "http://other/v1", "GOOGLE_API_KEY": "g-env",
	})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Embedder != "cohere" || cfg.EmbedDimensions != 512 || cfg.OpenAIAPIKey.Reveal() != "sk-env" ||
		cfg.OpenAIBaseURL != "http://other/v1" || cfg.GeminiAPIKey.Reveal() != "g-env" {
		t.Fatalf("env settings: %+v", cfg)
	}
	for _, env := range []map[string]string{{"RAGSCOPE_EMBEDDER": "voyage"}, {"RAGSCOPE_EMBED_DIMENSIONS": "-3"}, {"RAGSCOPE_EMBED_DIMENSIONS": "big"}} {
		if _, err := Load(LoadOptions{Dir: t.TempDir(), LookupEnv: envOf(env)}); !errors.Is(err, retrieval.ErrConfig) {
			t.Errorf("%v: err = %v, want ErrConfig", env, err)
		}
	}
}

func TestResolvedEmbedderAndValidate(t *testing.T) {
	c := Default()
	c.QdrantURL, c.Collection = "http://q:6333", "book"
	if c.ResolvedEmbedder() != EmbedderCohere || c.Validate() == nil {
		t.Fatal("no key: cohere is asked for and missing")
	}
	c.OpenAIAPIKey = "sk"
	if c.ResolvedEmbedder() != EmbedderOpenAI || c.Validate() != nil || c.EmbedderChoice() != "" {
		t.Fatalf("OpenAI key only: %s, %v", c.ResolvedEmbedder(), c.Validate())
	}
	c.CohereAPIKey = "co"
	if c.ResolvedEmbedder() != EmbedderCohere || !strings.Contains(c.EmbedderChoice(), "COHERE_API_KEY and OPENAI_API_KEY are all set") {
		t.Fatal("both keys: cohere, and a note saying why")
	}
	c.Embedder = EmbedderOpenAI
	c.OpenAIAPIKey = ""
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--embedder openai needs OPENAI_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}

func TestModelProvider(t *testing.T) {
	for model, want := range map[string]string{
		"embed-english-v3.0": EmbedderCohere, "embed-multilingual-light-v3.0": EmbedderCohere,
		"text-embedding-3-small": EmbedderOpenAI, "TEXT-EMBEDDING-3-LARGE": EmbedderOpenAI, "text-embedding-ada-002": EmbedderOpenAI,
		"gemini-embedding-001": EmbedderGemini, "models/text-embedding-004": EmbedderGemini,
		"nomic-embed-text": "", "": "", "text-embedding-3": "",
	} {
		if got := ModelProvider(model); got != want {
			t.Errorf("ModelProvider(%q) = %q, want %q", model, got, want)
		}
	}
}

func TestAutoEmbedderFromModelThenKeysThenBaseURL(t *testing.T) {
	c := Default()
	c.QdrantURL, c.Collection = "http://q:6333", "book"
	c.CohereAPIKey, c.OpenAIAPIKey, c.GeminiAPIKey = "co", "sk", "g"
	// The model's publisher wins over the key order, and the note says so.
	c.EmbedModel = "gemini-embedding-001"
	if c.ResolvedEmbedder() != EmbedderGemini || !strings.Contains(c.EmbedderChoice(), "the model gemini-embedding-001 is gemini's") {
		t.Fatalf("model name: %s, %q", c.ResolvedEmbedder(), c.EmbedderChoice())
	}
	c.EmbedModel = "text-embedding-3-large"
	if c.ResolvedEmbedder() != EmbedderOpenAI {
		t.Fatalf("OpenAI model: %s", c.ResolvedEmbedder())
	}
	// A model no provider publishes falls back to the keys.
	c.EmbedModel = "nomic-embed-text"
	if c.ResolvedEmbedder() != EmbedderCohere || !strings.Contains(c.EmbedderChoice(), "are all set") {
		t.Fatalf("unknown model: %s", c.ResolvedEmbedder())
	}
	// No key at all: a base URL picks the provider, and a local
	// OpenAI-compatible server needs no key.
	c.CohereAPIKey, c.OpenAIAPIKey, c.GeminiAPIKey = "", "", ""
	c.OpenAIBaseURL = "http://localhost:11434/v1"
	if c.ResolvedEmbedder() != EmbedderOpenAI || c.Validate() != nil {
		t.Fatalf("local base URL: %s, %v", c.ResolvedEmbedder(), c.Validate())
	}
	// OpenAI's own API still needs the key.
	c.OpenAIBaseURL = "https://api.openai.com/v1"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "needs OPENAI_API_KEY") {
		t.Fatalf("api.openai.com without a key: %v", err)
	}
	c.OpenAIBaseURL, c.GeminiBaseURL = "", "http://proxy/gemini"
	if c.ResolvedEmbedder() != EmbedderGemini {
		t.Fatalf("Gemini base URL: %s", c.ResolvedEmbedder())
	}
}
