//go:build unix

package links_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A docusaurus.config.js that is a named pipe is never opened (opening a
// pipe with no writer blocks forever): it counts as no config, and the
// audit runs on Docusaurus's defaults and says so.
func TestCLILinksSiteConfigPipeRefused(t *testing.T) {
	site := writeBareSite(t)
	if err := syscall.Mkfifo(filepath.Join(site, "docusaurus.config.js"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	code, out, errs := runCLI(t, "links", "--docs", filepath.Join(site, "docs"), "--site", site)
	if code != 0 || !strings.Contains(out, "Docusaurus defaults assumed") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}
