package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An index built from a plain docs folder names no site: `links` exits 2
// and says how to give one, and the way it names works.
func TestLinksIndexFromPlainDocsSaysHowToGiveASite(t *testing.T) {
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	page := "# Torque\n\n## Current Loops\n\nA motor driver closes a current loop to control torque precisely.\n\n## Gear Ratios\n\nGearboxes trade speed for torque in every joint of the arm.\n"
	if err := os.WriteFile(filepath.Join(docs, "torque.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(root, "book.idx")
	if code, _, errs := run(t, nil, "", "index", docs, "-o", idx); code != ExitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	code, _, errs := run(t, nil, "", "--index", idx, "links")
	if code != ExitConfig {
		t.Fatalf("exit %d, want %d: %s", code, ExitConfig, errs)
	}
	for _, want := range []string{"no site to check against", "built from a docs folder with no docusaurus.config.* beside it", "--site DIR, the folder that holds docs/", "--base-url", "--live"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	// The named fix works: the folder holding docs/, no config needed.
	code, out, errs := run(t, nil, "", "--index", idx, "--site", root, "links")
	if code != ExitOK || !strings.Contains(out, "PASSED") {
		t.Errorf("--site %s: exit %d\n%s\n%s", root, code, out, errs)
	}
	// --docs of a plain folder: the exact --site to pass.
	code, _, errs = run(t, nil, "", "--docs", docs, "links")
	if code != ExitConfig || !strings.Contains(errs, "pass --site "+root+" (the folder that holds docs/") {
		t.Errorf("--docs: exit %d: %s", code, errs)
	}
}

// A site whose config is docusaurus.config.ts (or any name Docusaurus
// reads) is a site: an index built from its docs, and --docs, check links
// against it with no --site.
func TestLinksFindsATypeScriptConfiguredSite(t *testing.T) {
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "export default {\n  url: 'https://example.org',\n  baseUrl: '/book/',\n};\n"
	if err := os.WriteFile(filepath.Join(root, "docusaurus.config.ts"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	page := "# Torque\n\n## Current Loops\n\nA motor driver closes a current loop to control torque precisely.\n"
	if err := os.WriteFile(filepath.Join(docs, "torque.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(root, "book.idx")
	if code, _, errs := run(t, nil, "", "index", docs, "-o", idx); code != ExitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	for _, args := range [][]string{{"--index", idx, "links"}, {"--docs", docs, "links"}} {
		code, out, errs := run(t, nil, "", args...)
		if code != ExitOK || !strings.Contains(out, "PASSED") {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
	}
}
