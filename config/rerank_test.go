package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval"
)

func TestRerankSettings(t *testing.T) {
	cfg, err := Load(LoadOptions{Dir: t.TempDir(), LookupEnv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RerankModel != "" || cfg.RerankCandidates != retrieval.DefaultRerankCandidates || cfg.RerankThreshold != 0 {
		t.Fatalf("defaults: %q %d %v", cfg.RerankModel, cfg.RerankCandidates, cfg.RerankThreshold)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DefaultFileName), []byte("[rerank]\nmodel = \"bm25\"\ncandidates = 3\nthreshold = 0.2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(LoadOptions{Dir: dir, LookupEnv: envOf(map[string]string{"RAGSCOPE_RERANK_CANDIDATES": "8"})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RerankModel != "bm25" || cfg.RerankCandidates != 8 || cfg.RerankThreshold != 0.2 {
		t.Fatalf("file + env: %q %d %v", cfg.RerankModel, cfg.RerankCandidates, cfg.RerankThreshold)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("bm25 needs no key: %v", err)
	}
	cfg, err = Load(LoadOptions{Dir: t.TempDir(), LookupEnv: envOf(map[string]string{"RAGSCOPE_RERANK_MODEL": "rerank-v3.5"})})
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "COHERE_API_KEY") || !strings.Contains(err.Error(), "bm25") {
		t.Fatalf("a Cohere rerank model without a key: %v", err)
	}
	for _, bad := range []Config{{RerankCandidates: 0}, {RerankCandidates: 101}, {RerankCandidates: 4, RerankThreshold: 2}} {
		c := Default()
		c.RerankCandidates, c.RerankThreshold = bad.RerankCandidates, bad.RerankThreshold
		if err := c.Validate(); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "rerank") {
			t.Errorf("%d / %v: %v", bad.RerankCandidates, bad.RerankThreshold, err)
		}
	}
	if _, err := Load(LoadOptions{Dir: t.TempDir(), LookupEnv: envOf(map[string]string{"RAGSCOPE_RERANK_CANDIDATES": "many"})}); !errors.Is(err, retrieval.ErrConfig) {
		t.Fatalf("unparsable candidates: %v", err)
	}
}
