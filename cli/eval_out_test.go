package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalOutCheckedFirst: an --out report that cannot be written (a
// missing folder, a folder) is exit 2 before any case runs; a writable one
// is not created by the check alone.
func TestEvalOutCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	for _, out := range []string{filepath.Join(dir, "missing", "report.json"), dir} {
		code, stdout, errs := run(t, nil, "", "eval", "--out", out)
		if code != ExitConfig {
			t.Fatalf("--out %s: exit %d, want %d: %s", out, code, ExitConfig, errs)
		}
		if !strings.Contains(errs, "--out") || strings.Contains(stdout, "PASS") || stdout != "" {
			t.Errorf("--out %s: the run started or the error does not name --out\nstdout: %s\nstderr: %s", out, stdout, errs)
		}
	}
	if err := checkOutFile(filepath.Join(dir, "new.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.json")); !os.IsNotExist(err) {
		t.Errorf("the check left a file behind: %v", err)
	}
}
