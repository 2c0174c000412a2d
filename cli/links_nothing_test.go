package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinksThatCheckedNothingFail: links --live on a collection whose
// citation URLs are all site-relative, with no site URL set, could check
// none of them; that is a configuration error (exit 2) naming the missing
// setting, not "0 ok · N external · PASSED".
func TestLinksThatCheckedNothingFail(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	writeTestFile(t, filepath.Join(mkdir(t, docs), "intro.md"), "# Intro\n\n## Getting started\n\nSome words about robots.\n")
	for _, args := range [][]string{
		{"links", "--live", "--docs", docs},
		{"links", "--live", "--json", "--docs", docs},
	} {
		code, out, errs := run(t, map[string]string{"__DIR": dir}, "", args...)
		if code != ExitConfig {
			t.Fatalf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, ExitConfig, out, errs)
		}
		if !strings.Contains(errs, "--site-url") || !strings.Contains(errs, "site-relative") {
			t.Errorf("%v: the error does not name the missing setting: %s", args, errs)
		}
		if strings.Contains(out, "PASSED") {
			t.Errorf("%v: a run that checked nothing says PASSED:\n%s", args, out)
		}
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
