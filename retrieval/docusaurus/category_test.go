package docusaurus

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadCategory(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/a/_category_.json": {Data: []byte(`{"label": "Module A", "link": {"type": "generated-index", "slug": "/a"}}`)},
		"docs/b/_category_.yml":  {Data: []byte("label: Module B\n")},
		"docs/c/_category_.yaml": {Data: []byte("label: [unclosed\n")},
		"docs/d/intro.md":        {Data: []byte("# Intro\n")},
	}
	cat, ok, err := ReadCategory(fsys, "docs/a")
	if err != nil || !ok || cat.Label != "Module A" || cat.Link.Type != "generated-index" || cat.Link.Slug != "/a" || cat.Source != "docs/a/_category_.json" {
		t.Fatalf("json: %+v %v %v", cat, ok, err)
	}
	if cat, ok, err := ReadCategory(fsys, "docs/b"); err != nil || !ok || cat.Label != "Module B" {
		t.Fatalf("yml: %+v %v %v", cat, ok, err)
	}
	if _, ok, err := ReadCategory(fsys, "docs/c"); ok || err == nil || !strings.Contains(err.Error(), "docs/c/_category_.yaml") {
		t.Fatalf("bad yaml: ok %v, err %v", ok, err)
	}
	if _, ok, err := ReadCategory(fsys, "docs/d"); ok || err != nil {
		t.Fatalf("no category: ok %v, err %v", ok, err)
	}
}
