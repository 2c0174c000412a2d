package config

import (
	"errors"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// TestSettingsTableConsistent: every setting has a parser, and no flag,
// variable or key belongs to two settings.
func TestSettingsTableConsistent(t *testing.T) {
	seen := map[string]string{}
	claim := func(kind, what, name string) {
		if what == "" {
			return
		}
		k := kind + " " + what
		if prev, ok := seen[k]; ok {
			t.Errorf("%s used by %s and %s", k, prev, name)
		}
		seen[k] = name
	}
	for _, s := range testProviders.Settings() {
		if s.Set == nil || s.Name == "" || s.Help == "" {
			t.Errorf("setting %q lacks a name, parser or help", s.Name)
		}
		claim("flag", s.Flag, s.Name)
		claim("flag", s.CommandFlag, s.Name)
		for _, e := range s.Env {
			claim("env", e, s.Name)
		}
		for _, k := range s.TOML {
			claim("toml", k, s.Name)
		}
		if s.Secret && s.Flag != "" {
			t.Errorf("secret %s must not be a flag (it would show in ps and shell history)", s.Name)
		}
	}
}

func TestTOMLFromTable(t *testing.T) {
	dir := t.TempDir()
	load := func(body string, env map[string]string) (Config, error) {
		t.Helper()
		if err := writeFile(dir, "ragscope.toml", body); err != nil {
			t.Fatal(err)
		}
		return Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(env)})
	}
	cfg, err := load("[cohere]\nmodel = \"old\"\n[embedder]\nmodel = \"new\"\n[retrieval]\ndedup = false\ntimeout = 10\nthreshold = 0.25\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.EmbedModel != "new" || cfg.Dedup || cfg.Timeout.Seconds() != 10 || cfg.Threshold != 0.25 {
		t.Errorf("file values: %+v", cfg)
	}
	cfg, err = load("[cohere]\nmodel = \"old\"\n", map[string]string{"RAGSCOPE_DEDUP": "false"})
	if err != nil || cfg.EmbedModel != "old" || cfg.Dedup {
		t.Errorf("[cohere] model and RAGSCOPE_DEDUP: %+v, %v", cfg, err)
	}
	for body, want := range map[string]string{
		"[retrieval]\ntop_k = \"five\"\n":   "retrieval.top_k: not a whole number",
		"[retrieval]\ntop_k = [1]\n":        "retrieval.top_k: must be a string",
		"[embedder]\nprovider = \"bert\"\n": "embedder.provider: unknown embedder",
		"[site]\nslug = \"x\"\n":            "unknown setting site.slug",
		"mapping = 3\n":                     "mapping must be a table",
	} {
		_, err := load(body, nil)
		if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
