package links_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/cli"
	"ragscope/links"
)

// writeBareSite writes a site folder without docusaurus.config.* (only
// docs/) and returns it.
func writeBareSite(t *testing.T) string {
	t.Helper()
	site := t.TempDir()
	docs := filepath.Join(site, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	page := "# Balance\n\n## Zero Moment Point {#zmp}\n\nThe zero moment point stays inside the support polygon while a robot walks on two legs.\n\n## Sensors & Actuators\n\nSensors and actuators close the loop for balance control on legged robots with many joints.\n"
	if err := os.WriteFile(filepath.Join(docs, "balance.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	return site
}

// --site DIR without a config honours --base-url: the citations built on
// it are checked against the folder's pages, not all "page missing".
func TestCLILinksBareSiteHonoursBaseURL(t *testing.T) {
	site := writeBareSite(t)
	for _, base := range []string{"https://me.github.io/book/docs/", "https://me.github.io/guide/"} {
		code, out, errs := runCLI(t, "links", "--json", "--docs", filepath.Join(site, "docs"), "--site", site, "--base-url", base)
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", base, code, out, errs)
		}
		var rep links.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		if s := rep.Summary; s.OK != 2 || s.PageMissing != 0 || !s.Passed {
			t.Errorf("%s: summary %+v", base, s)
		}
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), "taken from the docs base URL "+base) {
			t.Errorf("%s: warnings do not say where url and baseUrl came from: %q", base, rep.Warnings)
		}
	}
	// A config-less folder and no --base-url: Docusaurus's defaults.
	code, out, errs := runCLI(t, "links", "--docs", filepath.Join(site, "docs"), "--site", site)
	if code != cli.ExitOK || !strings.Contains(out, "Docusaurus defaults assumed") {
		t.Errorf("defaults: exit %d\n%s\n%s", code, out, errs)
	}
}

// The CLI offers the real id, and names the explicit id, not a rename.
func TestCLILinksSuggestsRealIDs(t *testing.T) {
	site := writeBareSite(t)
	old := t.TempDir()
	if err := os.WriteFile(filepath.Join(old, "balance.md"), []byte("# Balance\n\n## Zero Moment Point zmp\n\nThe zero moment point stays inside the support polygon while a robot walks on two legs.\n\n## Sensors and Actuators\n\nSensors and actuators close the loop for balance control on legged robots with many joints.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "links", "--docs", old, "--site", site)
	if code != cli.ExitCheck {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"try #zmp", "explicit heading id", "try #sensors--actuators", `"&" written as "and"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "renamed") || strings.Contains(out, "try #zero-moment-point-zmp") {
		t.Errorf("a slug rule or explicit id reported as a rename, or a broken fix offered:\n%s", out)
	}
}
