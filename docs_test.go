package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"ragscope/retrieval/docusaurus"
)

// docPages are the user documentation: the README and the pages under
// docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, pages...)
}

var (
	// inlineCode is a code span, which may hold brackets that are no link.
	inlineCode = regexp.MustCompile("`[^`]*`")
	// mdLink is an inline link or image: [text](target) or
	// [text](target "title"); its text may run over lines.
	mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// atxHeading is a heading line and its text, closing #s left out.
	atxHeading = regexp.MustCompile(`^#{1,6}\s+(.*?)(?:\s+#+)?\s*$`)
	// scheme starts an absolute link (https:, mailto:…).
	scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// prose returns md's lines outside fenced code blocks, fenced lines blank
// so that line numbers stay.
func prose(md string) []string {
	lines := strings.Split(md, "\n")
	fence := ""
	for i, l := range lines {
		trim := strings.TrimSpace(l)
		switch {
		case fence == "" && (strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~")):
			fence = trim[:3]
			lines[i] = ""
		case fence != "":
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
			lines[i] = ""
		}
	}
	return lines
}

// headingIDs returns the anchors GitHub gives md's headings: each
// heading's text as rendered (markup and code backticks dropped), slugged
// by github-slugger, repeats numbered -1, -2, … on the page.
func headingIDs(md string) map[string]bool {
	ids := map[string]bool{}
	slugger := docusaurus.NewSlugger(docusaurus.SlugGitHub)
	for _, l := range prose(md) {
		m := atxHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ids[slugger.Slug(docusaurus.StripInlineMarkup(m[1]))] = true
	}
	return ids
}

// relativeLink is one relative link of a page: where it is, and its
// target's path and anchor.
type relativeLink struct {
	line         int
	path, anchor string
}

// relativeLinks returns the links of md that point inside the repository
// (no scheme), outside code blocks and code spans.
func relativeLinks(md string) []relativeLink {
	text := strings.Join(prose(md), "\n")
	text = inlineCode.ReplaceAllStringFunc(text, func(s string) string {
		return strings.Repeat("\n", strings.Count(s, "\n")) // keep line numbers
	})
	var out []relativeLink
	for _, m := range mdLink.FindAllStringSubmatchIndex(text, -1) {
		target := text[m[4]:m[5]]
		if scheme.MatchString(target) {
			continue
		}
		path, anchor, _ := strings.Cut(target, "#")
		out = append(out, relativeLink{line: strings.Count(text[:m[0]], "\n") + 1, path: path, anchor: anchor})
	}
	return out
}

// Every relative link of the README and the docs pages resolves: its file
// or folder exists in the repository, and its #anchor is a heading of the
// page it names (by GitHub's heading ids).
func TestDocLinksResolve(t *testing.T) {
	ids := map[string]map[string]bool{} // page -> its heading ids
	anchorsOf := func(page string) map[string]bool {
		if ids[page] == nil {
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			ids[page] = headingIDs(string(b))
		}
		return ids[page]
	}
	checked := 0
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range relativeLinks(string(b)) {
			checked++
			target := page
			if l.path != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(l.path))
				if strings.HasPrefix(target, "..") {
					t.Errorf("%s:%d: %s leads outside the repository", page, l.line, l.path)
					continue
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: %s: no such file or folder", page, l.line, l.path)
					continue
				}
			}
			if l.anchor == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s:%d: #%s on %s, which is no markdown page", page, l.line, l.anchor, target)
				continue
			}
			if !anchorsOf(target)[l.anchor] {
				t.Errorf("%s:%d: %s has no heading #%s", page, l.line, target, l.anchor)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d relative links found: the link reader is broken", checked)
	}
}

// Every docs page is linked from the README, so none is out of reach.
func TestDocPagesLinkedFromReadme(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var linked []string
	for _, l := range relativeLinks(string(b)) {
		linked = append(linked, filepath.Clean(l.path))
	}
	pages := docPages(t)[1:]
	if len(pages) < 5 {
		t.Errorf("%d docs pages, want at least five", len(pages))
	}
	for _, p := range pages {
		if !slices.Contains(linked, p) {
			t.Errorf("the README does not link %s", p)
		}
	}
}

// The link reader itself: links over lines, anchors, code spans and
// fences left alone, GitHub's ids for headings with code and repeats.
func TestDocLinkReader(t *testing.T) {
	md := "# T\n\n## Reranking: `--rerank MODEL`\n\n## Why not this chunk?\n\n## Why not this chunk?\n\n" +
		"see [the\njudge](golden-sets.md#a-judge) and [x](#why-not-this-chunk-1) `[no](link)`\n" +
		"```\n[no](fence)\n```\n[web](https://example.com) ![img](a.png)\n"
	var got []string
	for _, l := range relativeLinks(md) {
		got = append(got, l.path+"#"+l.anchor)
	}
	if want := []string{"golden-sets.md#a-judge", "#why-not-this-chunk-1", "a.png#"}; !slices.Equal(got, want) {
		t.Errorf("links %q, want %q", got, want)
	}
	ids := headingIDs(md)
	for _, id := range []string{"t", "reranking---rerank-model", "why-not-this-chunk", "why-not-this-chunk-1"} {
		if !ids[id] {
			t.Errorf("no heading id %q in %v", id, ids)
		}
	}
}

// tableRows returns the rows of the first table after heading in md, each
// row's cells trimmed (header and rule left out).
func tableRows(md, heading string) [][]string {
	_, rest, ok := strings.Cut(md, "\n"+heading+"\n")
	if !ok {
		return nil
	}
	var rows [][]string
	started := false
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		line = strings.ReplaceAll(line, `\|`, "\x00") // an escaped pipe is cell text
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|")))
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 {
		return nil
	}
	return rows[2:]
}

// codePaths returns the code spans of s that name a path: no space, and a
// slash or a .go or .md name.
func codePaths(s string) []string {
	var out []string
	for _, span := range inlineCode.FindAllString(s, -1) {
		p := strings.Trim(span, "`")
		if strings.ContainsAny(p, " \t") || !(strings.Contains(p, "/") || strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// The architecture page's "where a change goes" table answers the
// newcomer's questions (a golden-set field, an eval --vs flag, a pane, a
// provider, a store, a command, a JSON field, an audit), and every folder
// or file it names exists in the tree, so it stays true when code moves.
func TestWhereAChangeGoesPathsExist(t *testing.T) {
	b, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := tableRows(string(b), "## Where a change goes")
	if len(rows) < 8 {
		t.Fatalf("the where-a-change-goes table has %d rows", len(rows))
	}
	var changes []string
	named := 0
	for _, r := range rows {
		changes = append(changes, r[0])
		for _, cell := range r[1:] {
			for _, p := range codePaths(cell) {
				named++
				if _, err := os.Stat(filepath.FromSlash(strings.TrimSuffix(p, "/"))); err != nil {
					t.Errorf("row %q names %s, which is not in the tree", r[0], p)
				}
			}
		}
	}
	all := strings.Join(changes, "\n")
	for _, q := range []string{"golden-set field", "`eval --vs` flag", "pane", "provider", "store", "CLI command", "JSON field", "audit"} {
		if !strings.Contains(all, q) {
			t.Errorf("no row says where a new %s goes", q)
		}
	}
	if named < 15 {
		t.Errorf("the table names only %d paths", named)
	}
}

// The README's two commands are true: the first runs ragscope from the
// repository's root, and CI (.ci/run) runs the second, the test command,
// with -race added and nothing taken away.
func TestReadmeTwoCommands(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## The two commands\n")
	if !ok {
		t.Fatal("the README has no section \"The two commands\"")
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, _ := strings.Cut(rest, "```")
	var cmds []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if len(cmds) != 2 || cmds[0] != "go run ." {
		t.Fatalf("the two commands are %q", cmds)
	}
	if _, err := os.Stat("main.go"); err != nil {
		t.Errorf("`go run .` needs the command at the root: %v", err)
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	test := strings.Fields(cmds[1]) // go test [flags] packages
	for _, l := range strings.Split(string(ci), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "go" || f[1] != "test" || !slices.Contains(f, "-race") {
			continue
		}
		for _, arg := range test[2:] {
			if !slices.Contains(f, arg) {
				t.Errorf(".ci/run runs %q, without the README's %q", l, arg)
			}
		}
		return
	}
	t.Errorf(".ci/run runs no go test -race: the README says CI runs %q with -race", cmds[1])
}
