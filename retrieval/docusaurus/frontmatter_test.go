package docusaurus

import "testing"

func TestSplitFrontMatter(t *testing.T) {
	tests := []struct {
		name, src, raw, body string
		line                 int
		found, unclosed      bool
	}{
		{"none", "# T\n", "", "# T\n", 1, false, false},
		{"plain", "---\nslug: x\n---\n# T\n", "slug: x\n", "# T\n", 4, true, false},
		// The book fixture's docs/fm-trailing.md: the real build applies its slug.
		{"trailing space close", "---\nslug: x\n--- \n\n## A\n", "slug: x\n", "\n## A\n", 4, true, false},
		{"crlf", "---\r\nslug: x\r\n---\r\nbody", "slug: x\r\n", "body", 4, true, false},
		{"bom", "\ufeff---\nid: a\n---\n", "id: a\n", "", 4, true, false},
		{"empty", "---\n---\nbody", "", "body", 3, true, false},
		{"dots do not close", "---\nslug: x\n...\nbody\n", "", "slug: x\n...\nbody\n", 2, false, true},
		{"unclosed", "---\nslug: x\n", "", "slug: x\n", 2, false, true},
		{"not at start", "\n---\nslug: x\n---\n", "", "\n---\nslug: x\n---\n", 1, false, false},
	}
	for _, tt := range tests {
		got := SplitFrontMatter(tt.src)
		if got.Raw != tt.raw || got.Body != tt.body || got.BodyLine != tt.line || got.Found != tt.found || got.Unclosed != tt.unclosed {
			t.Errorf("%s: got %+v", tt.name, got)
		}
	}
}

func TestParseFields(t *testing.T) {
	f, err := ParseFields("title: Intro\nslug: /x\nid: 2021\ndraft: true\n")
	if err != nil || f.String("title") != "Intro" || f.String("slug") != "/x" || f.String("id") != "2021" || !f.Bool("draft") {
		t.Errorf("fields = %v, err %v", f, err)
	}
	// A broken key keeps the others, and the error is returned.
	f, err = ParseFields("title: [unclosed\nslug: /kept\ndescription: >\n  folded\n  text\n")
	if err == nil || f.String("slug") != "/kept" || f.String("title") != "" || f.String("description") != "folded text" {
		t.Errorf("salvaged = %v, err %v", f, err)
	}
	if f, err := ParseFields(""); err != nil || f == nil || f.String("x", "y") != "" || f.Bool("draft") {
		t.Errorf("empty = %v, %v", f, err)
	}
	f, _ = ParseFields("content-type: lesson\n")
	if f.String("content_type", "content-type") != "lesson" {
		t.Errorf("aliases: %v", f)
	}
}
