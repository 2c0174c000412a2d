package local

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// The documentation (the README and docs/*.md) names the index format this
// ragscope writes, the same everywhere, and the older formats it refuses.
func TestReadmeNamesTheIndexFormat(t *testing.T) {
	pages, err := filepath.Glob("../../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	for _, p := range append([]string{"../../../README.md"}, pages...) {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, page...)
	}
	named := regexp.MustCompile(`(?:index file|exact index) \(format (\d+)`).FindAllSubmatch(b, -1)
	if len(named) < 2 {
		t.Fatalf("the documentation names the index format %d times", len(named))
	}
	for _, m := range named {
		if n, _ := strconv.Atoi(string(m[1])); n != indexVersion {
			t.Errorf("the documentation says %q; the index is format %d", m[0], indexVersion)
		}
	}
	older := regexp.MustCompile(`formats 1 to (\d+) included`).FindSubmatch(b)
	if older == nil {
		t.Fatal("the documentation does not say which older formats are refused")
	}
	if n, _ := strconv.Atoi(string(older[1])); n != indexVersion-1 {
		t.Errorf("the documentation says %q; the older formats are 1 to %d", older[0], indexVersion-1)
	}
}
