package local

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// The README names the index format this ragscope writes, the same
// everywhere, and the older formats it refuses.
func TestReadmeNamesTheIndexFormat(t *testing.T) {
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`(?:index file|exact index) \(format (\d+)`).FindAllSubmatch(b, -1)
	if len(named) < 2 {
		t.Fatalf("the README names the index format %d times", len(named))
	}
	for _, m := range named {
		if n, _ := strconv.Atoi(string(m[1])); n != indexVersion {
			t.Errorf("the README says %q; the index is format %d", m[0], indexVersion)
		}
	}
	older := regexp.MustCompile(`formats 1 to (\d+) included`).FindSubmatch(b)
	if older == nil {
		t.Fatal("the README does not say which older formats are refused")
	}
	if n, _ := strconv.Atoi(string(older[1])); n != indexVersion-1 {
		t.Errorf("the README says %q; the older formats are 1 to %d", older[0], indexVersion-1)
	}
}
