package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestPrecedenceFileDotEnvEnvironment(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ragscope.toml", `
[qdrant]
url = "https://file.example:6333"
collection = "from-file"
[retrieval]
top_k = 7
threshold = 0.25
dedup = false
timeout = "5s"
[site]
base_url = "https://me.github.io/book/docs/"
slug_style = "simple"
[mapping]
text = ["body", "text"]
url = "link"
`)
	write(".env", "QDRANT_COLLECTION=from-dotenv\nCOHERE_API_KEY=dotenv-key\n")
	cfg, err := Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(map[string]string{"COHERE_API_KEY": "env-key"})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Collection != "from-dotenv" {
		t.Errorf(".env should beat the file: %q", cfg.Collection)
	}
	if cfg.Key("cohere").Reveal() != "env-key" {
		t.Errorf("the environment should beat .env")
	}
	if cfg.QdrantURL != "https://file.example:6333" || cfg.TopK != 7 || cfg.Threshold != 0.25 || cfg.Dedup || cfg.Timeout != 5*time.Second || cfg.SlugStyle != "simple" {
		t.Errorf("file values: %+v", cfg)
	}
	if got := cfg.Mapping["text"]; len(got) != 2 || got[0] != "body" || cfg.Mapping["url"][0] != "link" {
		t.Errorf("mapping = %v", cfg.Mapping)
	}
	if cfg.File == "" || cfg.EnvFile == "" {
		t.Errorf("sources not recorded: %q %q", cfg.File, cfg.EnvFile)
	}
}

func TestBadFileAndEnv(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ragscope.toml"), []byte("[retrieval]\ntop_k = \"five\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(nil)})
	if err == nil || !strings.Contains(err.Error(), "line") {
		t.Errorf("broken toml: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ragscope.toml"), []byte("[retrieval]\ntopk = 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(nil)})
	if err == nil || !strings.Contains(err.Error(), "retrieval.topk") {
		t.Errorf("unknown key: %v", err)
	}
	_, err = Load(LoadOptions{Providers: testProviders, Dir: t.TempDir(), LookupEnv: envOf(map[string]string{"RAGSCOPE_TOP_K": "many"})})
	if err == nil || !strings.Contains(err.Error(), "RAGSCOPE_TOP_K") {
		t.Errorf("bad env: %v", err)
	}
	_, err = Load(LoadOptions{Providers: testProviders, Dir: t.TempDir(), File: filepath.Join(dir, "missing.toml"), LookupEnv: envOf(nil)})
	if err == nil {
		t.Error("an explicit missing config file is an error")
	}
}

func TestSecretsRedacted(t *testing.T) {
	cfg := Default()
	cfg.Keys = map[string]Secret{"cohere": "co-very-secret"}
	cfg.QdrantAPIKey = "qd-very-secret"
	cfg.QdrantURL = "https://user:pw-secret@host:6333"
	red := cfg.Redacted()
	b, _ := json.Marshal(red)
	outs := []string{string(b), fmt.Sprintf("%v", red), fmt.Sprintf("%+v", red), fmt.Sprintf("%#v", red), fmt.Sprint(cfg.Key("cohere")), cfg.QdrantAPIKey.String()}
	for _, s := range outs {
		for _, secret := range []string{"co-very-secret", "qd-very-secret", "pw-secret"} {
			if strings.Contains(s, secret) {
				t.Fatalf("secret %q printed in %s", secret, s)
			}
		}
	}
	if !strings.Contains(string(b), "[redacted]") {
		t.Errorf("redaction marker missing: %s", b)
	}
	if cfg.Key("cohere").Reveal() != "co-very-secret" {
		t.Error("Reveal lost the value")
	}
}

// TestRedactedURLSettings plants a credential in the user information and
// in a credential query parameter of every URL-valued setting, through the
// environment: the redacted configuration, in every format, holds neither,
// and still names the host.
func TestRedactedURLSettings(t *testing.T) {
	urls := testProviders.URLSettings()
	if len(urls) < 6 {
		t.Fatalf("only %d URL settings", len(urls))
	}
	env := map[string]string{}
	for i, s := range urls {
		env[s.Env[0]] = fmt.Sprintf("https://user%d:PLANTEDpw%d@host%d.example/v1?alt=json&key=PLANTEDkey%d&X-Goog-Api-Key=PLANTEDgk%d#access_token=PLANTEDfr%d", i, i, i, i, i, i)
	}
	cfg, err := Load(LoadOptions{Providers: testProviders, Dir: t.TempDir(), LookupEnv: envOf(env), SkipDotEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	before := fmt.Sprintf("%#v", cfg)
	red := cfg.Redacted()
	if after := fmt.Sprintf("%#v", cfg); after != before {
		t.Errorf("Redacted changed the configuration itself")
	}
	b, _ := json.Marshal(red)
	for _, out := range []string{string(b), fmt.Sprintf("%v", red), fmt.Sprintf("%+v", red), fmt.Sprintf("%#v", red)} {
		if strings.Contains(out, "PLANTED") {
			t.Errorf("a planted URL credential is printed: %s", out)
		}
		for i := range urls {
			if !strings.Contains(out, fmt.Sprintf("host%d.example/v1?alt=json", i)) {
				t.Errorf("URL %d lost more than its credentials: %s", i, out)
			}
		}
	}
	// The URLs ragscope signs in with keep their credentials for the
	// client, marked when printed; the docs base and site origin, only
	// ever shown, drop them.
	for _, s := range urls {
		v := s.Reveal(cfg)
		switch s.Name {
		case "base_url", "site_url":
			if strings.Contains(v, "PLANTED") || !strings.HasSuffix(v, ".example/v1?alt=json") {
				t.Errorf("%s = %s, want its credentials dropped", s.Name, v)
			}
		default:
			if !strings.Contains(v, "PLANTEDkey") {
				t.Errorf("%s = %s lost its credentials before reaching the client", s.Name, v)
			}
		}
	}
	if !strings.Contains(strings.Join(cfg.Notes, "\n"), "base_url: credentials in the URL dropped") {
		t.Errorf("no note says the docs base lost its credentials: %q", cfg.Notes)
	}
}

// TestURLSettingsMarked: a setting whose name says URL is marked as one
// (Setting.URL), so Redacted and the planted-secret tests cover a new URL
// setting without being told.
func TestURLSettingsMarked(t *testing.T) {
	for _, s := range testProviders.Settings() {
		if strings.HasSuffix(strings.ToLower(s.Name), "url") && !s.URL {
			t.Errorf("setting %s holds a URL but has no Setting.URL", s.Name)
		}
		if s.URL && len(s.Env) == 0 {
			t.Errorf("URL setting %s has no environment variable to plant a secret in", s.Name)
		}
	}
}
