package demo

import (
	"io/fs"
	"strings"
	"testing"
)

func TestSiteLayout(t *testing.T) {
	site := Site()
	cfg, err := fs.ReadFile(site, "docusaurus.config.js")
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	if !strings.Contains(string(cfg), strings.TrimSuffix(SiteURL, "/")) {
		t.Errorf("config does not mention %s", SiteURL)
	}
	if !strings.HasPrefix(DocsBaseURL, SiteURL+"/") || !strings.HasSuffix(DocsBaseURL, "/") {
		t.Errorf("DocsBaseURL %q is not under SiteURL %q", DocsBaseURL, SiteURL)
	}
	var pages int
	err = fs.WalkDir(site, DocsDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".mdx")) {
			pages++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 16 {
		t.Errorf("the demo has %d pages, want at least 16", pages)
	}
}
