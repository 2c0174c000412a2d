package links_test

import (
	"path/filepath"
	"strings"
	"testing"

	"ragscope/cli"
)

// A fresh index of a real textbook passes its own link audit: every
// chunk's text is where its citation points (no code block cut into raw
// text, no section cited for text under a later # heading).
func TestCLILinksFreshIndexOfTextbooks(t *testing.T) {
	if testing.Short() {
		t.Skip("chunks two textbooks")
	}
	for _, site := range []string{
		"../retrieval/store/local/testdata/readers/robotics-textbook",
		"../retrieval/store/local/testdata/readers/humanoid-course",
		"../retrieval/store/local/demo/site",
	} {
		t.Run(filepath.Base(site), func(t *testing.T) {
			code, out, errs := runCLI(t, "links", "--docs", filepath.Join(site, "docs"), "--site", site)
			if code != cli.ExitOK || !strings.Contains(out, "0 wrong section · 0 text not found · PASSED") {
				t.Fatalf("exit %d\n%s\n%s", code, lastLines(out, 30), errs)
			}
		})
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(s, "\n")
	return strings.Join(l[max(len(l)-n, 0):], "\n")
}
