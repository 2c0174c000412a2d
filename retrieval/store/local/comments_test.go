package local

import (
	"strings"
	"testing"
)

func TestHTMLCommentsAreNotContent(t *testing.T) {
	src := "---\ntitle: Page\n---\n\n## Real\n\nVisible text.\n\n<!--\n## Commented-out heading\n\nhidden words\n-->\n\nAfter <!-- inline note --> the comment.\n\n```bash\n<!-- in code stays -->\n# not a heading\n```\n"
	chunks, err := ChunkMarkdown("docs/a.md", []byte(src), ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, c := range chunks {
		if strings.Contains(c.Section, "Commented") {
			t.Fatalf("a heading inside an HTML comment became section %q", c.Section)
		}
		all.WriteString(c.Text)
	}
	text := all.String()
	for _, gone := range []string{"hidden words", "inline note"} {
		if strings.Contains(text, gone) {
			t.Errorf("comment text %q indexed", gone)
		}
	}
	for _, kept := range []string{"Visible text.", "After  the comment.", "<!-- in code stays -->", "# not a heading"} {
		if !strings.Contains(text, kept) {
			t.Errorf("lost %q in:\n%s", kept, text)
		}
	}
}

func TestDraftPagesSkipped(t *testing.T) {
	var warns []Warning
	chunks, err := ChunkMarkdown("docs/d.md", []byte("---\ntitle: Draft\ndraft: true\n---\n\n## Soon\n\nNot published yet.\n"), ChunkOptions{Warn: func(w Warning) { warns = append(warns, w) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 0 {
		t.Fatalf("draft page indexed: %d chunks", len(chunks))
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Message, "draft") {
		t.Fatalf("warnings = %v", warns)
	}
}
