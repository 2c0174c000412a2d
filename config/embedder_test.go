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
		if got, err := testProviders.ParseEmbedder(in); err != nil || got != want {
			t.Errorf("testProviders.ParseEmbedder(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := testProviders.ParseEmbedder("voyage"); err == nil || !strings.Contains(err.Error(), "use auto, cohere, openai") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmbedderSettingsFromFileAndEnv(t *testing.T) {
	dir := t.TempDir()
	toml := "[embedder]\nprovider = \"openai\"\nmodel = \"text-embedding-3-large\"\ndimensions = 1024\n[openai]\napi_key = \"sk-file\"\nbase_url = \"http://u:p@proxy/v1\"\n[gemini]\napi_key = \"g-file\"\n"
	if err := os.WriteFile(filepath.Join(dir, DefaultFileName), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Embedder != "openai" || cfg.EmbedModel != "text-embedding-3-large" || cfg.EmbedDimensions != 1024 ||
		cfg.Key("openai").Reveal() != "sk-file" || cfg.Key("gemini").Reveal() != "g-file" {
		t.Fatalf("file settings: %+v", cfg)
	}
	b, _ := json.Marshal(cfg.Redacted())
	if strings.Contains(string(b), "sk-file") || strings.Contains(string(b), "g-file") || strings.Contains(string(b), "u:p@") {
		t.Fatalf("secrets in %s", b)
	}
	cfg, err = Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(map[string]string{
		"RAGSCOPE_EMBEDDER": "cohere", "RAGSCOPE_EMBED_DIMENSIONS": "512", "OPENAI_API_KEY": "sk-env",
		"OPENAI_BASE_URL": "http://other/v1", "GOOGLE_API_KEY": "g-env",
	})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Embedder != "cohere" || cfg.EmbedDimensions != 512 || cfg.Key("openai").Reveal() != "sk-env" ||
		cfg.BaseURL("openai") != "http://other/v1" || cfg.Key("gemini").Reveal() != "g-env" {
		t.Fatalf("env settings: %+v", cfg)
	}
	for _, env := range []map[string]string{{"RAGSCOPE_EMBEDDER": "voyage"}, {"RAGSCOPE_EMBED_DIMENSIONS": "-3"}, {"RAGSCOPE_EMBED_DIMENSIONS": "big"}} {
		if _, err := Load(LoadOptions{Providers: testProviders, Dir: t.TempDir(), LookupEnv: envOf(env)}); !errors.Is(err, retrieval.ErrConfig) {
			t.Errorf("%v: err = %v, want ErrConfig", env, err)
		}
	}
}
