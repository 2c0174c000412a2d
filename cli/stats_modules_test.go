package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeModulesBook writes a textbook laid out as docs/modules/module-N/
// with _category_ labels and returns its docs folder.
func writeModulesBook(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"docs/intro.md":                         "# Intro\n\nWelcome to the book about robots.\n",
		"docs/modules/module-1/_category_.json": `{"label": "Module 1: ROS 2", "position": 1}`,
		"docs/modules/module-1/01-nodes.md":     "# Nodes\n\n## Graph\n\nNodes talk over topics in the ROS graph.\n",
		"docs/modules/module-1/02-topics.md":    "# Topics\n\nTopics carry typed messages between nodes.\n",
		"docs/modules/module-2/_category_.yml":  "label: 'Module 2: Simulation'\n",
		"docs/modules/module-2/01-gazebo.md":    "# Gazebo\n\nGazebo simulates physics for robots.\n",
	}
	for p, s := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "docs")
}

// A docs/modules/module-N/ book gets modules module-N (not "modules"),
// shown in stats with their labels and chunk counts, also from a saved
// index; ragscope.toml overrides the layout.
func TestStatsModuleMapping(t *testing.T) {
	docs := writeModulesBook(t)
	code, out, errs := run(t, nil, "", "stats", "--docs", docs)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"Modules:\n",
		`module-1      2 chunks  "Module 1: ROS 2"`,
		`module-2      1 chunk   "Module 2: Simulation"`,
		"(none)        1 chunk   (pages outside a module folder)",
		"Note: modules: module = folder level 2 under docs (detected from the folders)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "modules ") {
		t.Errorf("the folder holding the modules is taken for a module:\n%s", out)
	}

	idx := filepath.Join(t.TempDir(), "book.idx")
	if code, out, errs := run(t, nil, "", "index", docs, "-o", idx); code != ExitOK || !strings.Contains(out, "Modules: module = folder level 2 under docs") {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, nil, "", "stats", "--json", "--index", idx)
	var doc StatsJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK {
		t.Fatalf("exit %d %v\n%s\n%s", code, err, out, errs)
	}
	if doc.Stats.FacetCounts["module"]["module-1"] != 2 || doc.Stats.FacetLabels["module"]["module-2"] != "Module 2: Simulation" {
		t.Errorf("saved index: counts %v labels %v", doc.Stats.FacetCounts["module"], doc.Stats.FacetLabels)
	}

	cfgDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfgDir, "ragscope.toml"), []byte("[facets.modules]\n\"modules/module-2\" = \"sim\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, map[string]string{"__DIR": cfgDir}, "", "stats", "--docs", docs)
	if code != ExitOK || !strings.Contains(out, "sim           1 chunk") || !strings.Contains(out, "module-1") {
		t.Errorf("override: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, map[string]string{"RAGSCOPE_MODULE_DIR_DEPTH": "1"}, "", "stats", "--docs", docs)
	if code != ExitOK || !strings.Contains(out, "modules      3 chunks") || !strings.Contains(out, "folder level 1 under docs (set by facets.module_dir_depth)") {
		t.Errorf("depth 1: exit %d\n%s", code, out)
	}
}

// A book whose modules sit in docs/modules/ beside another folder: the
// modules are the folders under docs/modules/, found without
// configuration; module_dir_depth still overrides.
func TestStatsFindsTheModulesFolder(t *testing.T) {
	docs := writeModulesBook(t)
	page := "# Extra\n\nAn appendix page about units.\n"
	if err := os.MkdirAll(filepath.Join(docs, "appendix"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "appendix", "units.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		p := filepath.Join(docs, "modules", "module-1", fmt.Sprintf("%02d-more.md", i+3))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# More %d\n\nMore text number %d.\n", i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := run(t, nil, "", "stats", "--docs", docs)
	if code != ExitOK || !strings.Contains(out, "module-1     10 chunks") || !strings.Contains(out, "appendix      1 chunk") ||
		!strings.Contains(out, "modules: module = folder level 1 under docs, the folders under docs/modules/ (detected from the folders)") {
		t.Errorf("exit %d\n%s", code, out)
	}
	code, out, _ = run(t, map[string]string{"RAGSCOPE_MODULE_DIR_DEPTH": "1"}, "", "stats", "--docs", docs)
	if code != ExitOK || !strings.Contains(out, "modules      11 chunks") {
		t.Errorf("depth 1: exit %d\n%s", code, out)
	}
}
