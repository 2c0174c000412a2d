package config

import (
	"errors"
	"strings"
	"testing"

	"ragscope/retrieval"
)

const setupsTOML = `# a book, two ways
backend = "local"

[local]
index = "book.idx"
search = "hybrid"

[retrieval]
top_k = 7

[setups.small.local]
index = "small.idx"

[setups.bm25]
local.search = "bm25"
retrieval.top_k = 3

[setups.prod]
qdrant.collection = "book"
`

func loadSetup(t *testing.T, body, setup string, env map[string]string) (Config, error) {
	t.Helper()
	dir := t.TempDir()
	if err := writeFile(dir, "ragscope.toml", body); err != nil {
		t.Fatal(err)
	}
	return Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(env), Setup: setup, SkipDotEnv: true})
}

// TestSetupInherits: a setup's keys win over the top level and the
// environment; the keys it does not set come from the top level.
func TestSetupInherits(t *testing.T) {
	cfg, err := loadSetup(t, setupsTOML, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.IndexFile != "book.idx" || cfg.TopK != 7 || cfg.Setup != "" {
		t.Errorf("top level: %+v", cfg)
	}
	if got := strings.Join(cfg.SetupNames, ","); got != "small,bm25,prod" {
		t.Errorf("setup names %q, want the file's order", got)
	}
	if n := cfg.SetupLine("bm25"); n != 14 {
		t.Errorf("bm25 defined on line %d, want 14", n)
	}

	cfg, err = loadSetup(t, setupsTOML, "small", map[string]string{"RAGSCOPE_INDEX": "env.idx", "RAGSCOPE_TOP_K": "9"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Setup != "small" || cfg.IndexFile != "small.idx" || cfg.LocalSearch != "hybrid" || cfg.TopK != 9 || cfg.Resolved() != BackendLocal {
		t.Errorf("small: setup %q index %q search %q top_k %d backend %s", cfg.Setup, cfg.IndexFile, cfg.LocalSearch, cfg.TopK, cfg.Resolved())
	}

	cfg, err = loadSetup(t, setupsTOML, "bm25", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.IndexFile != "book.idx" || cfg.LocalSearch != "bm25" || cfg.TopK != 3 {
		t.Errorf("bm25: index %q search %q top_k %d", cfg.IndexFile, cfg.LocalSearch, cfg.TopK)
	}

	// A setup naming a collection picks Qdrant when a URL is known.
	cfg, err = loadSetup(t, setupsTOML, "prod", map[string]string{"QDRANT_URL": "http://localhost:6334"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Resolved() != BackendQdrant || cfg.Collection != "book" {
		t.Errorf("prod: backend %s collection %q", cfg.Resolved(), cfg.Collection)
	}

	// A local setup wins over QDRANT_URL, and its index over inherited docs.
	cfg, err = loadSetup(t, "[local]\ndocs = \"docs\"\n[setups.small.local]\nindex = \"small.idx\"\n", "small", map[string]string{"QDRANT_URL": "http://localhost:6334"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Resolved() != BackendLocal || cfg.DocsDir != "" || cfg.IndexFile != "small.idx" {
		t.Errorf("local over QDRANT_URL: backend %s docs %q index %q", cfg.Resolved(), cfg.DocsDir, cfg.IndexFile)
	}
}

// TestSetupErrorsNameFileAndLine: unknown keys, in a setup or at the top
// level, and unknown setup names are configuration errors (exit 2) naming
// the file and the line.
func TestSetupErrorsNameFileAndLine(t *testing.T) {
	for _, tc := range []struct {
		name, body, setup string
		want              []string
	}{
		{"unknown key in a setup", setupsTOML + "\n[setups.big]\nlocal.indx = \"x\"\n", "", []string{"ragscope.toml line 22: unknown setting setups.big.local.indx"}},
		{"unknown key in a setup table", "[setups.big.retrieval]\n\ntopk = 3\n", "big", []string{"ragscope.toml line 3: unknown setting setups.big.retrieval.topk"}},
		{"unknown top-level keys", "[site]\nslug = \"x\"\n\nfoo = 1\n", "", []string{"line 2: unknown setting site.slug; line 4: unknown setting site.foo"}},
		{"bad value in a setup", setupsTOML + "[setups.bad]\nretrieval.top_k = \"five\"\n", "", nil},
		{"unknown setup name", setupsTOML, "large", []string{"--setup large: no such setup in", "ragscope.toml (it defines small (line 11), bm25 (line 14), prod (line 18))"}},
		{"no setups at all", "[retrieval]\ntop_k = 3\n", "large", []string{"--setup large:", "ragscope.toml (it defines none: add a [setups.NAME] table)"}},
		{"setups not a table", "setups = 3\n", "", []string{"ragscope.toml line 1: setups must be tables"}},
		{"a setup without a name", setupsTOML + "\n[setups.\"\"]\nretrieval.top_k = 3\n", "", []string{"[setups.\"\"] has no name: name the setup"}},
		{"a setup named by spaces", "[setups.\" \"]\nretrieval.top_k = 3\n", "", []string{"ragscope.toml line 1: [setups.\" \"] has no name"}},
	} {
		_, err := loadSetup(t, tc.body, tc.setup, nil)
		if tc.want == nil {
			// Values are checked when the setup is applied.
			_, err = loadSetup(t, tc.body, "bad", nil)
			tc.want = []string{"ragscope.toml line 21: setups.bad.retrieval.top_k: not a whole number"}
		}
		if !errors.Is(err, retrieval.ErrConfig) {
			t.Errorf("%s: %v, want a configuration error", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant %q", tc.name, err, w)
			}
		}
	}
	// No file at all.
	_, err := Load(LoadOptions{Providers: testProviders, Dir: t.TempDir(), LookupEnv: envOf(nil), Setup: "x", SkipDotEnv: true})
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "no ragscope.toml was read") {
		t.Errorf("no file: %v", err)
	}
}

func TestKeyLines(t *testing.T) {
	got := keyLines("a = 1\n[b]\n# c = 2\nc = \"\"\"\nd = 3\n\"\"\"\n[ \"e\" . f ]\ng.h = 4 # x\n[[arr]]\ni = 5\n")
	want := map[string]int{"a": 1, "b": 2, "b.c": 4, "e": 7, "e.f": 7, "e.f.g": 8, "e.f.g.h": 8, "arr": 9, "arr.i": 10}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s on line %d, want %d", k, got[k], n)
		}
	}
	if _, ok := got["d"]; ok {
		t.Error("a key inside a multi-line string was recorded")
	}
	if _, ok := got["b.d"]; ok {
		t.Error("a key inside a multi-line string was recorded")
	}
}
