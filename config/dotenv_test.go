package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragscope/internal/readlimit"
	"ragscope/retrieval"
)

func TestParseDotEnv(t *testing.T) {
	src := "# comment\n\nexport A=plain value # trailing comment\nB='single # kept'\nC=\"two\\nlines \\\"q\\\"\"\nD: colon\nE=\"multi\nline\"\nF=\n"
	got, err := parseDotEnv(".env", src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "plain value", "B": "single # kept", "C": "two\nlines \"q\"", "D": "colon", "E": "multi\nline", "F": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d variables, want %d: %v", len(got), len(want), got)
	}
}

// TestParseDotEnvErrorsNeverEchoValues breaks a .env the ways a user
// would; each error names the file and line and never a value.
func TestParseDotEnvErrorsNeverEchoValues(t *testing.T) {
	const secret = "sk-PLANTED-0xDEADBEEF"
	cases := []struct {
		name, src, want string
	}{
		{"bad line", "COHERE_API_KEY=" + secret + "\nthis line is broken\nQDRANT_API_KEY=" + secret + "\n", ".env line 2:"},
		{"unterminated double quote", "A=1\nCOHERE_API_KEY=\"" + secret + "\nQDRANT_API_KEY=" + secret + "\n", ".env line 2: COHERE_API_KEY: unterminated"},
		{"unterminated single quote", "COHERE_API_KEY='" + secret + "\n", ".env line 1: COHERE_API_KEY: unterminated"},
		{"bad name", "COHERE API KEY=" + secret + "\n", ".env line 1: invalid variable name"},
		{"text after quote", "COHERE_API_KEY=\"" + secret + "\"" + secret + "\n", ".env line 1: COHERE_API_KEY: unexpected text"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseDotEnv(".env", tc.src)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, retrieval.ErrConfig) {
				t.Errorf("not a configuration error: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "PLANTED") {
				t.Errorf("error echoes the secret: %q", err)
			}
		})
	}
}

func TestParseTimeoutOneRule(t *testing.T) {
	for in, want := range map[string]time.Duration{"10": 10 * time.Second, "2.5": 2500 * time.Millisecond, "1m": time.Minute, " 30s ": 30 * time.Second} {
		if got, err := ParseTimeout(in); err != nil || got != want {
			t.Errorf("ParseTimeout(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-5s", "0", "soon"} {
		if _, err := ParseTimeout(in); err == nil {
			t.Errorf("ParseTimeout(%q) accepted", in)
		}
	}
	// The environment takes what the flag takes.
	cfg, err := Load(LoadOptions{Providers: testProviders, Dir: t.TempDir(), LookupEnv: envOf(map[string]string{"RAGSCOPE_TIMEOUT": "10"})})
	if err != nil || cfg.Timeout != 10*time.Second {
		t.Errorf("RAGSCOPE_TIMEOUT=10: %v, %v", cfg.Timeout, err)
	}
}

func TestProviderSettings(t *testing.T) {
	for in, want := range map[string]string{"": "auto", "OpenAI": "openai", " gemini ": "gemini", "local": "local", "cohere": "cohere"} {
		if got, err := testProviders.ParseEmbedder(in); err != nil || got != want {
			t.Errorf("testProviders.ParseEmbedder(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := testProviders.ParseEmbedder("bert"); err == nil {
		t.Error("testProviders.ParseEmbedder(bert) accepted")
	}
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := writeFile(dir, name, body); err != nil {
			t.Fatal(err)
		}
	}
	write("ragscope.toml", "[embedder]\nprovider = \"openai\"\nmodel = \"text-embedding-3-small\"\ndimensions = 256\n[openai]\napi_key = \"file-key\"\nbase_url = \"http://proxy\"\n[gemini]\nbase_url = \"http://g\"\n")
	cfg, err := Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(map[string]string{"GOOGLE_API_KEY": "gk"})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Embedder != "openai" || cfg.EmbedModel != "text-embedding-3-small" || cfg.EmbedDimensions != 256 ||
		cfg.Key("openai").Reveal() != "file-key" || cfg.BaseURL("openai") != "http://proxy" || cfg.BaseURL("gemini") != "http://g" || cfg.Key("gemini").Reveal() != "gk" {
		t.Errorf("provider settings: %+v", cfg)
	}
	cfg, err = Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(map[string]string{"RAGSCOPE_EMBEDDER": "gemini", "RAGSCOPE_EMBED_DIMENSIONS": "768", "GEMINI_API_KEY": "g1", "GOOGLE_API_KEY": "g2"})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Embedder != "gemini" || cfg.EmbedDimensions != 768 || cfg.Key("gemini").Reveal() != "g1" {
		t.Errorf("environment should win: %+v", cfg)
	}
	if _, err := Load(LoadOptions{Providers: testProviders, Dir: t.TempDir(), LookupEnv: envOf(map[string]string{"RAGSCOPE_EMBEDDER": "bert"})}); !errors.Is(err, retrieval.ErrConfig) {
		t.Errorf("bad RAGSCOPE_EMBEDDER: %v", err)
	}
}

func writeFile(dir, name, body string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600)
}

// TestDotEnvBadValueNamesFileAndLine: a value in .env that its setting's
// parser rejects is reported with the file and the line it is on, never
// the value; one the environment overrides is not used, so not checked.
func TestDotEnvBadValueNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	const secret = "PLANTED-0xDEADBEEF"
	src := "# settings\nCOHERE_API_KEY=" + secret + "\n\nRAGSCOPE_TOP_K=\"many" + secret + "\"\n"
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) (string, bool) { return "", false }
	_, err := Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: noEnv})
	want := filepath.Join(dir, ".env") + " line 4: RAGSCOPE_TOP_K: "
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(fmt.Sprint(err), want) || strings.Contains(fmt.Sprint(err), "PLANTED") {
		t.Errorf("err = %v, want a configuration error naming %q and no value", err, want)
	}
	cfg, err := Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: func(k string) (string, bool) {
		if k == "RAGSCOPE_TOP_K" {
			return "7", true
		}
		return "", false
	}})
	if err != nil || cfg.TopK != 7 {
		t.Errorf("environment over a bad .env value: top_k %d, %v", cfg.TopK, err)
	}
}

// TestConfigFilesBounded: a .env or ragscope.toml larger than its bound,
// or that is not a regular file (a named pipe would block the read), is a
// configuration error naming it.
func TestConfigFilesBounded(t *testing.T) {
	noEnv := func(string) (string, bool) { return "", false }
	for _, name := range []string{".env", DefaultFileName} {
		dir := t.TempDir()
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		// Sparse: the size is past the bound, the disk holds nothing.
		if err := f.Truncate(readlimit.DotEnv + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
		_, err = Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: noEnv})
		if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(fmt.Sprint(err), p+" is larger than 1 MiB") {
			t.Errorf("%s past its bound: %v", name, err)
		}
		os.Remove(p)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		_, err = Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: noEnv})
		if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(fmt.Sprint(err), p+" is a folder") {
			t.Errorf("%s a folder: %v", name, err)
		}
	}
}
