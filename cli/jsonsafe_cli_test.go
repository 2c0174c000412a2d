package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/internal/jsonsafe"
)

// poisonedModule is a module folder name with a C1 code and bidi controls.
const poisonedModule = "mod\u0085\u2066x\u2069"

// poisonedDocs writes a docs folder whose page carries C1 codes and bidi
// controls in its module folder, its title and its text, and returns its
// path.
func poisonedDocs(t *testing.T, text string) string {
	t.Helper()
	docs := filepath.Join(t.TempDir(), "docs")
	mod := filepath.Join(docs, poisonedModule)
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	page := "# Evil \u009b31m title \u202e\n\n## Torque Control\n\n" + text + "\n"
	if err := os.WriteFile(filepath.Join(mod, "evil.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	return docs
}

// assertNoRawControls fails when out holds a raw C1 or bidi control rune.
func assertNoRawControls(t *testing.T, out string) {
	t.Helper()
	for i, r := range out {
		if jsonsafe.Unsafe(r) {
			t.Fatalf("raw %U at byte %d of the JSON:\n%s", r, i, out)
		}
	}
}

func TestQueryJSONEscapesC1AndBidi(t *testing.T) {
	text := "Motors \u009b2J make \u202etorque\u202c here \u200e\u061c\u0080 and \u2067more\u2069."
	docs := poisonedDocs(t, text)
	code, out, errs := run(t, nil, "", "--docs", docs, "query", "--json", "torque motors")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	assertNoRawControls(t, out)
	for _, want := range []string{`\u009b`, `\u202e`, `\u061c`} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lacks the escape %s:\n%s", want, out)
		}
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Results) == 0 || !strings.Contains(doc.Results[0].Text, text) {
		t.Fatalf("text does not decode to the original %q: %+v", text, doc.Results)
	}
	if doc.Results[0].Module != poisonedModule {
		t.Errorf("module decodes to %q, want %q", doc.Results[0].Module, poisonedModule)
	}
}

func TestStatsJSONEscapesC1AndBidi(t *testing.T) {
	docs := poisonedDocs(t, "Motors make torque.")
	code, out, errs := run(t, nil, "", "--docs", docs, "stats", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	assertNoRawControls(t, out)
	var doc StatsJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got := doc.Stats.Facets["module"]; len(got) != 1 || got[0] != poisonedModule {
		t.Errorf("module facet decodes to %q, want %q\n%s", got, poisonedModule, out)
	}
	if !strings.Contains(out, `\u0085\u2066`) {
		t.Errorf("JSON lacks the escapes:\n%s", out)
	}
}
