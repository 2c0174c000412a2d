package local

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
)

func chunkOne(t *testing.T, docPath, src string, opts ChunkOptions) ([]retrieval.Chunk, []Warning) {
	t.Helper()
	var warns []Warning
	opts.Warn = func(w Warning) { warns = append(warns, w) }
	cs, err := ChunkMarkdown(docPath, []byte(src), opts)
	if err != nil {
		t.Fatalf("ChunkMarkdown: %v", err)
	}
	return cs, warns
}

func sections(cs []retrieval.Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Section
	}
	return out
}

func TestFrontMatterGood(t *testing.T) {
	src := "---\ntitle: \"Nodes: the basics\"\nslug: /ros/nodes\ntags: [ros2, nodes]\ncontent_type: tutorial\ndescription: About nodes.\n---\n\n# Ignored H1\n\nIntro text.\n\n## Next\n\nMore.\n"
	cs, warns := chunkOne(t, "docs/module-1-ros2/02-nodes.md", src, ChunkOptions{})
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	if len(cs) != 2 {
		t.Fatalf("got %d chunks, want 2", len(cs))
	}
	c := cs[0]
	if c.Title != "Nodes: the basics" || c.PageSlug != "/ros/nodes" || c.ContentType != "tutorial" {
		t.Errorf("title/slug/type = %q %q %q", c.Title, c.PageSlug, c.ContentType)
	}
	if strings.Join(c.Tags, ",") != "ros2,nodes" {
		t.Errorf("tags = %v", c.Tags)
	}
	if c.Extra["description"] != "About nodes." {
		t.Errorf("description = %q", c.Extra["description"])
	}
	if c.Module != "module-1-ros2" || c.Chapter != "nodes" {
		t.Errorf("module/chapter = %q %q", c.Module, c.Chapter)
	}
	if !strings.HasPrefix(c.Text, "# Ignored H1\n\nIntro text.") {
		t.Errorf("intro text = %q", c.Text)
	}
	if strings.Contains(c.Text, "---") || strings.Contains(c.Text, "content_type") {
		t.Errorf("front matter leaked into text: %q", c.Text)
	}
	if c.URL != "" {
		t.Errorf("URL = %q, want empty (the pipeline builds it)", c.URL)
	}
}

func TestFrontMatterTagsCommaStringAndOverrides(t *testing.T) {
	src := "---\ntitle: T\ntags: a, b ,a,\nmodule: custom-mod\nchapter: custom-ch\nid: my-id\n---\nBody.\n"
	cs, _ := chunkOne(t, "docs/m/01-x.md", src, ChunkOptions{})
	if len(cs) != 1 {
		t.Fatalf("got %d chunks", len(cs))
	}
	c := cs[0]
	if strings.Join(c.Tags, "|") != "a|b" {
		t.Errorf("tags = %q", c.Tags)
	}
	if c.Module != "custom-mod" || c.Chapter != "custom-ch" {
		t.Errorf("overrides: %q %q", c.Module, c.Chapter)
	}
	if got := retrieval.DocRoute(c.DocPath, c.PageSlug); got != "m/my-id" {
		t.Errorf("route with id = %q, want m/my-id", got)
	}
	// An index doc keeps its folder's route whatever its id (Docusaurus
	// routes "m/index.md" with id: x at "m/", as docusaurus.DocSlug does).
	cs, _ = chunkOne(t, "docs/m/index.md", "---\nid: my-id\n---\nBody of the index.\n", ChunkOptions{})
	if len(cs) != 1 {
		t.Fatalf("index: got %d chunks", len(cs))
	}
	if got := retrieval.DocRoute(cs[0].DocPath, cs[0].PageSlug); got != "m/" {
		t.Errorf("index route with id = %q, want m/", got)
	}
}

func TestFrontMatterBroken(t *testing.T) {
	src := "---\ntitle: Good Title\ntags: [a, b\ncontent_type: lab\n---\n\n## Section\n\nStill chunked.\n"
	cs, warns := chunkOne(t, "docs/m/page.md", src, ChunkOptions{})
	if len(warns) != 1 {
		t.Fatalf("warnings = %v, want 1", warns)
	}
	w := warns[0]
	if w.File != "docs/m/page.md" || w.Line < 2 || w.Line > 5 || !strings.Contains(w.Message, "front matter") {
		t.Errorf("warning = %+v", w)
	}
	if len(cs) != 1 || cs[0].Section != "Section" {
		t.Fatalf("chunks = %v", sections(cs))
	}
	if cs[0].Title != "Good Title" || cs[0].ContentType != "lab" {
		t.Errorf("salvaged title/type = %q %q", cs[0].Title, cs[0].ContentType)
	}
}

func TestFrontMatterUnclosedAndMissing(t *testing.T) {
	cs, warns := chunkOne(t, "docs/m/02-page.md", "---\ntitle: x\n\nSome text.\n", ChunkOptions{})
	if len(warns) != 1 || warns[0].Line != 1 {
		t.Errorf("warnings = %v", warns)
	}
	if len(cs) != 1 || !strings.Contains(cs[0].Text, "Some text.") {
		t.Errorf("chunks = %+v", cs)
	}
	// No front matter, no H1: the title comes from the file name.
	cs, warns = chunkOne(t, "docs/m/02-page.md", "Plain text.\n", ChunkOptions{})
	if len(warns) != 0 || len(cs) != 1 || cs[0].Title != "page" {
		t.Errorf("title = %q warns %v", cs[0].Title, warns)
	}
	// No front matter, an H1: the H1 is the title (markup removed).
	cs, _ = chunkOne(t, "docs/m/02-page.md", "# The *Real* Title {#t}\n\nText.\n", ChunkOptions{})
	if cs[0].Title != "The Real Title" || cs[0].Text != "# The *Real* Title\n\nText." {
		t.Errorf("title = %q text = %q", cs[0].Title, cs[0].Text)
	}
}

func TestHeadingsEmojiAndPunctuation(t *testing.T) {
	src := "---\ntitle: T\n---\n## 🚀 Launch!\n\na\n\n## ???\n\nb\n\n## ???\n\nc\n\n## 🚀 Launch!\n\nd\n"
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{})
	want := []struct{ section, id, anchor string }{
		{"🚀 Launch!", "", "#-launch"},
		{"???", "", ""},
		{"???", "-1", "#-1"},
		{"🚀 Launch!", "-launch-1", "#-launch-1"},
	}
	if len(cs) != len(want) {
		t.Fatalf("sections = %q", sections(cs))
	}
	b := retrieval.URLBuilder{DocsBase: "/docs/"}
	for i, w := range want {
		c := cs[i]
		if c.Section != w.section || c.HeadingID != w.id {
			t.Errorf("chunk %d: section %q id %q, want %q %q", i, c.Section, c.HeadingID, w.section, w.id)
		}
		if got := b.Cite(&c).URL; got != "/docs/p"+w.anchor {
			t.Errorf("chunk %d url = %q, want %q", i, got, "/docs/p"+w.anchor)
		}
	}
}

func TestFencesHideHeadings(t *testing.T) {
	src := "---\ntitle: T\n---\n## Setup\n\n```bash\n# install it\n## not a heading\n\n### nor this\n```\n\n~~~~python\n# comment\n~~~\n## still code (a shorter closing fence does not close)\n```\n## code too (a backtick fence does not close a tilde fence)\n~~~~\n\n## After\n\nText.\n"
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{})
	if got := sections(cs); strings.Join(got, "|") != "Setup|After" {
		t.Fatalf("sections = %q", got)
	}
	if !strings.Contains(cs[0].Text, "# install it\n## not a heading\n\n### nor this") {
		t.Errorf("code block mangled: %q", cs[0].Text)
	}
}

func TestUnclosedFenceRunsToEnd(t *testing.T) {
	src := "Intro.\n\n## A\n\n```\n## B\n\ncode\n"
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{})
	if got := sections(cs); strings.Join(got, "|") != "|A" {
		t.Fatalf("sections = %q", got)
	}
	if !strings.Contains(cs[1].Text, "## B\n\ncode") {
		t.Errorf("text = %q", cs[1].Text)
	}
}

func TestDuplicateAndExplicitIDs(t *testing.T) {
	src := "# Title\n\nx\n\n## Example\n\na\n\n### Example\n\nb\n\n#### Example\n\nc\n\n## Custom {#my-id}\n\nd\n\n## Example {/* #mdx-id */}\n\ne\n\n## Example\n\nf\n"
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{})
	type sid struct{ s, id string }
	var got []sid
	for _, c := range cs {
		got = append(got, sid{c.Section, c.HeadingID})
	}
	// The H4 stays inside the H3's chunk but takes "example-2"; explicit
	// ids do not take a slug, as in Docusaurus. Docusaurus 3.5.2 does not
	// read the MDX comment form as an id (real build): the section keeps
	// its text (the braces go, as in the mdast text Docusaurus slugs) and
	// its URL anchor is the slug of that.
	want := []sid{{"", ""}, {"Example", ""}, {"Example", "example-1"}, {"Custom", "my-id"}, {"Example /* #mdx-id */", ""}, {"Example", "example-3"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if !strings.Contains(cs[2].Text, "#### Example\n\nc") {
		t.Errorf("h4 not kept in section: %q", cs[2].Text)
	}
	if cs[3].Text != "## Custom\n\nd" {
		t.Errorf("explicit id not removed from text: %q", cs[3].Text)
	}
	if fmt.Sprint(cs[2].Breadcrumb) != "[Title Example Example]" {
		t.Errorf("breadcrumb = %q", cs[2].Breadcrumb)
	}
}

func TestEmptySectionsSkippedTinyKept(t *testing.T) {
	src := "## Empty\n\n## Parent\n\n### Child\n\nok\n\n## Tiny\n\nhi\n"
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{})
	if got := strings.Join(sections(cs), "|"); got != "Child|Tiny" {
		t.Errorf("sections = %q", got)
	}
	if fmt.Sprint(cs[0].Breadcrumb) != "[p Parent Child]" {
		t.Errorf("breadcrumb = %q", cs[0].Breadcrumb)
	}
}

func TestLongSectionSplitsOnParagraphs(t *testing.T) {
	var paras []string
	for i := 0; i < 12; i++ {
		paras = append(paras, fmt.Sprintf("Paragraph %d %s.", i, strings.Repeat("word ", 30+i)))
	}
	paras = append(paras, "```go\nfunc main() {\n\n\tprintln(1)\n}\n```")
	src := "## Long\n\n" + strings.Join(paras, "\n\n") + "\n"
	const max = 500
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{MaxChars: max})
	if len(cs) < 4 {
		t.Fatalf("got %d chunks, want a split", len(cs))
	}
	var rebuilt []string
	for _, c := range cs {
		if n := runeLen(c.Text); n > max {
			t.Errorf("chunk %s has %d chars > %d", c.ID, n, max)
		}
		if !strings.HasPrefix(c.Text, "## Long\n\n") || c.Section != "Long" {
			t.Errorf("chunk %s lacks its heading: %q", c.ID, c.Text[:20])
		}
		rebuilt = append(rebuilt, strings.Split(strings.TrimPrefix(c.Text, "## Long\n\n"), "\n\n")...)
	}
	// Paragraphs and the code block (blank line inside) come back whole and in order.
	if strings.Join(rebuilt, "\n\n") != strings.Join(paras, "\n\n") {
		t.Errorf("paragraphs were cut or reordered:\n%q", rebuilt)
	}
}

func TestOversizedParagraphSplitsOnSentences(t *testing.T) {
	var sents []string
	for i := 0; i < 40; i++ {
		sents = append(sents, fmt.Sprintf("Sentence number %d is here.", i))
	}
	long := strings.Join(sents, " ")
	word := strings.Repeat("x", 700) // one "word" longer than the limit: cut hard
	cs, _ := chunkOne(t, "docs/p.md", "## S\n\n"+long+"\n\n"+word+"\n", ChunkOptions{MaxChars: 300})
	var body []string
	for _, c := range cs {
		if runeLen(c.Text) > 300 {
			t.Errorf("chunk %s too long: %d", c.ID, runeLen(c.Text))
		}
		b := strings.TrimPrefix(c.Text, "## S\n\n")
		if !strings.HasPrefix(b, "x") && (!strings.HasPrefix(b, "Sentence") || !strings.HasSuffix(b, "here.")) {
			t.Errorf("chunk %s not on sentence boundaries: %q", c.ID, b)
		}
		body = append(body, b)
	}
	if got := strings.Join(body, ""); strings.ReplaceAll(got, "here.Sentence", "here. Sentence") != long+word {
		t.Errorf("text lost in splitting")
	}
}

func TestChunkIndexTotalIDAndHash(t *testing.T) {
	src := "Intro.\n\n## A\n\na\n\n## B\n\nb\n"
	cs, _ := chunkOne(t, "docs/m/01-x.md", src, ChunkOptions{})
	if len(cs) != 3 {
		t.Fatalf("got %d chunks", len(cs))
	}
	for i, c := range cs {
		if c.ID != fmt.Sprintf("docs/m/01-x.md#%d", i) {
			t.Errorf("id = %q", c.ID)
		}
		if idx, ok := c.Index(); !ok || idx != i || c.TotalChunks == nil || *c.TotalChunks != 3 {
			t.Errorf("chunk %d index/total = %v/%v", i, c.ChunkIndex, c.TotalChunks)
		}
		sum := sha256.Sum256([]byte(c.Text))
		if c.ContentHash != hex.EncodeToString(sum[:]) {
			t.Errorf("hash of chunk %d is wrong", i)
		}
	}
	if cs[1].ContentHash == cs[2].ContentHash {
		t.Error("different texts share a hash")
	}
	again, _ := chunkOne(t, "docs/m/01-x.md", src, ChunkOptions{})
	if !reflect.DeepEqual(again, cs) {
		t.Error("chunking is not deterministic")
	}
}

func TestPlaceOf(t *testing.T) {
	tests := []struct{ path, module, chapter string }{
		{"docs/intro.md", "", "intro"},
		{"docs/module-1-ros2/01-what-is-ros2.md", "module-1-ros2", "what-is-ros2"},
		{"docs/module-1-ros2/index.md", "module-1-ros2", "module-1-ros2"},
		{"docs/02-sim/README.mdx", "02-sim", "sim"},
		// The chapter is the category folder under the module, as the
		// sidebar groups it.
		{"docs/a/b/03-deep.md", "a", "b"},
		{"docs/a/02-b/c/03-deep.md", "a", "b"},
		{"docs/index.md", "", "index"},
	}
	for _, tt := range tests {
		m, c := placeOf(tt.path)
		if m != tt.module || c != tt.chapter {
			t.Errorf("placeOf(%q) = %q, %q; want %q, %q", tt.path, m, c, tt.module, tt.chapter)
		}
	}
}

func TestMDXImportsDropped(t *testing.T) {
	src := "import Tabs from '@theme/Tabs';\n\nText.\n\n```js\nimport x from 'y';\n```\n"
	cs, _ := chunkOne(t, "docs/p.mdx", src, ChunkOptions{})
	if strings.Contains(cs[0].Text, "@theme/Tabs") || !strings.Contains(cs[0].Text, "import x from 'y';") {
		t.Errorf("text = %q", cs[0].Text)
	}
}

func TestChunkMarkdownBinary(t *testing.T) {
	_, err := ChunkMarkdown("docs/x.md", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ChunkOptions{})
	if !errors.Is(err, ErrBinary) {
		t.Errorf("err = %v, want ErrBinary", err)
	}
	// A few invalid bytes in text are replaced, with a warning.
	cs, warns := chunkOne(t, "docs/x.md", "caf\xe9 au lait is a drink people like a lot.\n", ChunkOptions{})
	if len(warns) != 1 || !strings.Contains(cs[0].Text, "caf\uFFFD") {
		t.Errorf("warns %v text %q", warns, cs[0].Text)
	}
}

func TestChunkDocsFolder(t *testing.T) {
	fsys := fstest.MapFS{
		"site/docs/intro.md":                 {Data: []byte("---\ntitle: Intro\n---\nWelcome.\n")},
		"site/docs/m1/01-a.md":               {Data: []byte("## A\n\nText a.\n")},
		"site/docs/m1/_partial.md":           {Data: []byte("## Partial\n\nnot a page\n")},
		"site/docs/m1/_category_.json":       {Data: []byte("{}")},
		"site/docs/_drafts/x.md":             {Data: []byte("## Draft\n\nnot a page\n")},
		"site/docs/m1/image.md":              {Data: []byte("GIF89a\x00\x01\x02")},
		"site/docs/m1/empty.md":              {Data: []byte("")},
		"site/docs/m2/notes.txt":             {Data: []byte("## Not markdown\n")},
		"site/docs/m2/02-b.MDX":              {Data: []byte("## B\n\nText b.\n")},
		"site/docs/m2/broken.md":             {Data: []byte("---\ntitle: [oops\n---\nBody.\n")},
		"site/docusaurus.config.js":          {Data: []byte("module.exports = {url: 'https://x.org', baseUrl: '/'}")},
		"site/docs/.hidden/secret.md":        {Data: []byte("## Hidden\n\nno\n")},
		"site/docs/m1/deeper/03-c/index.mdx": {Data: []byte("Index page.\n")},
	}
	cs, warns, err := ChunkDocs(t.Context(), fsys, ChunkOptions{DocsDir: "site/docs"})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range cs {
		paths = append(paths, c.DocPath)
	}
	want := "docs/intro.md docs/m1/01-a.md docs/m1/deeper/03-c/index.mdx docs/m2/02-b.MDX docs/m2/broken.md"
	if got := strings.Join(paths, " "); got != want {
		t.Errorf("doc paths = %s\nwant %s", got, want)
	}
	var msgs []string
	for _, w := range warns {
		msgs = append(msgs, w.String())
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{"docs/m1/image.md: binary content", "docs/m1/empty.md: no text", "docs/m2/broken.md:2: broken front matter"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
	// The chapter is the category folder under the module.
	if cs[2].Chapter != "deeper" || cs[2].Module != "m1" {
		t.Errorf("nested index: module %q chapter %q", cs[2].Module, cs[2].Chapter)
	}
}

func TestChunkDocsNoMarkdown(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"empty":     {"docs": {Mode: 0o755 | 1<<31}},
		"only txt":  {"docs/a.txt": {Data: []byte("x")}},
		"binary md": {"docs/a.md": {Data: []byte{0, 1, 2}}},
	} {
		_, _, err := ChunkDocs(t.Context(), fsys, ChunkOptions{})
		if !errors.Is(err, ErrNoMarkdown) || !strings.Contains(err.Error(), "no markdown files found under docs") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	_, _, err := ChunkDocs(t.Context(), fstest.MapFS{}, ChunkOptions{DocsDir: "nope"})
	if err == nil || !strings.Contains(err.Error(), "docs folder nope") {
		t.Errorf("missing folder: err = %v", err)
	}
}

// TestChunkDocsKeepsPathOrder checks that chunking a folder's files across
// the CPUs gives what chunking them one by one in path order gives: the
// same chunks and the same warnings, in the same order.
func TestChunkDocsKeepsPathOrder(t *testing.T) {
	fsys := fstest.MapFS{}
	var paths []string
	for i := range 300 {
		p := fmt.Sprintf("docs/m%d/p%03d.md", i%3, i)
		src := fmt.Sprintf("# Page %d\n\nIntro %d.\n\n## Part\n\nJoint %d and servo %d.\n", i, i, i, i)
		switch i % 7 {
		case 1:
			src = "---\ntitle: [broken\n---\n" + src // a front matter warning
		case 2:
			src = "# Empty\n" // no text to index
		case 3:
			src = "bin\x00ary" // skipped as binary
		}
		fsys[p] = &fstest.MapFile{Data: []byte(src)}
		paths = append(paths, p)
	}
	var streamed []Warning
	opts := ChunkOptions{Warn: func(w Warning) { streamed = append(streamed, w) }}
	got, warns, err := ChunkDocs(t.Context(), fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	layout, err := DetectLayout(fsys, "docs", opts.Facets)
	if err != nil {
		t.Fatal(err)
	}
	var want []retrieval.Chunk
	var wantWarns []Warning
	one := ChunkOptions{layout: &layout, Warn: func(w Warning) { wantWarns = append(wantWarns, w) }}
	for _, p := range paths {
		cs, err := ChunkMarkdown(p, fsys[p].Data, one)
		switch {
		case errors.Is(err, ErrBinary):
			wantWarns = append(wantWarns, Warning{File: p, Message: "binary content in a markdown file; skipped"})
		case err != nil:
			t.Fatal(err)
		case len(cs) == 0:
			wantWarns = append(wantWarns, Warning{File: p, Message: "no text to index"})
		}
		want = append(want, cs...)
	}
	if len(wantWarns) < 3*40 {
		t.Fatalf("only %d warnings: the case does not test their order", len(wantWarns))
	}
	if len(got) != len(want) || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %d chunks unlike the %d of chunking file by file", len(got), len(want))
	}
	if !reflect.DeepEqual(warns, wantWarns) || !reflect.DeepEqual(streamed, wantWarns) {
		t.Fatalf("warnings differ:\n got %v\nwant %v", warns, wantWarns)
	}
}

// TestChunkDocsReadsPartials: an MDX page's rendered markdown partials are
// chunked where they are shown, as the page's text in the partial's
// sections; a partial heading repeating one of the page's keeps its own id
// (the partial is compiled apart), and partial files are no pages.
func TestChunkDocsReadsPartials(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/setup.mdx":           {Data: []byte("---\ntitle: Setup\n---\n\nimport Install from './_parts/_install.mdx';\n\n## Setup\n\nThe controller runs on the onboard computer of the mobile base.\n\n<Install />\n\n## Setup\n\nA second page heading with the same text gets the suffix.\n")},
		"docs/_parts/_install.mdx": {Data: []byte("## Install\n\nInstall the workspace with colcon build, then source the overlay.\n\n### Setup\n\nTorque sensors report the load of every joint.\n")},
		"docs/plain.md":            {Data: []byte("# Plain\n\nimport X from './_parts/_install.mdx';\n\n<X />\n\nThe chunker reads .md files as plain markdown: nothing is inlined.\n")},
	}
	chunks, _, err := ChunkDocs(t.Context(), fsys, ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type sec struct{ doc, section, id, text string }
	var got []sec
	for _, c := range chunks {
		lines := strings.Split(c.Text, "\n")
		got = append(got, sec{c.DocPath, c.Section, c.HeadingID, lines[len(lines)-1]})
	}
	want := []sec{
		{"docs/plain.md", "", "", "The chunker reads .md files as plain markdown: nothing is inlined."},
		{"docs/setup.mdx", "Setup", "", "The controller runs on the onboard computer of the mobile base."},
		{"docs/setup.mdx", "Install", "", "Install the workspace with colcon build, then source the overlay."},
		{"docs/setup.mdx", "Setup", "", "Torque sensors report the load of every joint."},
		{"docs/setup.mdx", "Setup", "setup-1", "A second page heading with the same text gets the suffix."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks\n got %q\nwant %q", got, want)
	}
}
