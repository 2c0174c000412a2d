package cli

import (
	"strings"
	"testing"
)

// A huge --expect REF is not echoed whole: its middle is cut and its
// length said, in both the "not in the collection" and the usage error.
func TestExpectLongRefIsCutInTheMiddle(t *testing.T) {
	ref := "docs/" + strings.Repeat("a", 100000) + "/end-of-it.md"
	code, out, errs := run(t, nil, "", "query", "--expect", ref, "how do nodes talk?")
	if code != ExitConfig || out != "" {
		t.Fatalf("exit %d\n%s", code, out)
	}
	line, _, _ := strings.Cut(errs, "\n")
	for _, want := range []string{"--expect docs/aaaa", "a…a", "aaaa/end-of-it.md (100,018 characters): not in the collection", "closest doc paths: docs/"} {
		if !strings.Contains(line, want) {
			t.Errorf("stderr lacks %q:\n%.500s", want, errs)
		}
	}
	if len(errs) > 1000 {
		t.Errorf("stderr is %d bytes:\n%.500s", len(errs), errs)
	}

	bad := "https://x.test/%zz" + strings.Repeat("b", 100000)
	code, _, errs = run(t, nil, "", "query", "--expect", bad, "how do nodes talk?")
	if code != ExitUsage || !strings.Contains(errs, `--expect "https://x.test/%zzbbb`) || !strings.Contains(errs, `bbb" (100,018 characters): give a doc path`) || len(errs) > 1000 {
		t.Errorf("exit %d:\n%.500s", code, errs)
	}
	// A short REF is shown as given.
	code, _, errs = run(t, nil, "", "query", "--expect", "docs/nowhere.md", "how do nodes talk?")
	if code != ExitConfig || !strings.Contains(errs, "--expect docs/nowhere.md: not in the collection") || strings.Contains(errs, "characters)") {
		t.Errorf("exit %d:\n%s", code, errs)
	}
}
