package config

import (
	"strings"
	"testing"
)

func TestFacetsFromTOML(t *testing.T) {
	dir := t.TempDir()
	load := func(body string, env map[string]string) (Config, error) {
		t.Helper()
		if err := writeFile(dir, "ragscope.toml", body); err != nil {
			t.Fatal(err)
		}
		return Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: envOf(env)})
	}
	cfg, err := load("[facets]\nmodule_dir_depth = 2\n\n[facets.modules]\n\"modules/module-1\" = \"ros2\"\n\"extra\" = \"appendix\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ModuleDirDepth != 2 || cfg.ModulePrefixes["modules/module-1"] != "ros2" || cfg.ModulePrefixes["extra"] != "appendix" {
		t.Errorf("facets: depth %d, prefixes %v", cfg.ModuleDirDepth, cfg.ModulePrefixes)
	}
	cfg, err = load("[facets]\nmodule_dir_depth = 2\n", map[string]string{"RAGSCOPE_MODULE_DIR_DEPTH": "1"})
	if err != nil || cfg.ModuleDirDepth != 1 {
		t.Errorf("the environment wins: %d, %v", cfg.ModuleDirDepth, err)
	}
	for body, want := range map[string]string{
		"[facets]\nmodule_dir_depth = -1\n": "facets.module_dir_depth: not a whole number 0..6",
		"[facets]\nmodule_dir_depth = 9\n":  "not a whole number 0..6",
		"[facets]\nmodules = \"x\"\n":       "facets.modules must be a table",
		"[facets.modules]\n\"a\" = 3\n":     `"a" must map a folder under docs to a module name`,
		"[facets.modules]\n\"a\" = \" \"\n": `"a" must map a folder under docs`,
		"[facets]\nmodule_depth = 2\n":      "unknown setting facets.module_depth",
	} {
		if _, err := load(body, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", body, err, want)
		}
	}
}
