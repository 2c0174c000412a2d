package links

import (
	"strings"

	"ragscope/internal/lazyre"
	"ragscope/retrieval/docusaurus"
)

// Heading is one heading of a page with the id Docusaurus gives it.
type Heading struct {
	// ID is the anchor: the explicit id, or the github-slugger id with the
	// page's duplicate suffix.
	ID string `json:"id"`
	// Text is the heading's text content (markup removed), what was slugged.
	Text string `json:"text"`
	// Level is 1..6.
	Level int `json:"level"`
	// Explicit is true for {#id} ids.
	Explicit bool `json:"explicit,omitempty"`
	// NoAnchor is true when the built page gives the heading no id, so no
	// URL can point at it: every H1 (Docusaurus's Heading component drops
	// the id of h1) and headings written as HTML/JSX (<h2>…</h2>) without an
	// id attribute. ID is then the slug a citation would use for it.
	NoAnchor bool `json:"no_anchor,omitempty"`
	// OwnText is true when the section has content of its own between the
	// heading and the next heading (a heading directly followed by a
	// subheading has none).
	OwnText bool `json:"own_text,omitempty"`
	// Line is the 1-based line in the source file: the page's, or
	// Partial's when the heading comes from a markdown partial the page
	// renders.
	Line int `json:"line"`
	// Partial is the file of the partial the heading comes from, "" for
	// the page's own headings.
	Partial string `json:"partial,omitempty"`
	// at is the heading's line index in the page's expanded body.
	at int
}

// frontMatter holds the front matter keys that change a doc's route.
type frontMatter struct {
	ID, Slug, Title string
	Draft, Unlisted bool
}

// splitFrontMatter returns the parsed front matter, the body and the number
// of lines before the body, reading the block as the chunker does
// (docusaurus.SplitFrontMatter and ParseFields: broken YAML keeps the keys
// that parse, with the error).
func splitFrontMatter(src string) (frontMatter, string, int, error) {
	var fm frontMatter
	src = strings.ReplaceAll(src, "\r\n", "\n")
	b := docusaurus.SplitFrontMatter(src)
	if !b.Found {
		return fm, src, 0, nil
	}
	f, err := docusaurus.ParseFields(b.Raw)
	fm = frontMatter{ID: f.String("id"), Slug: f.String("slug"), Title: f.String("title"), Draft: f.Bool("draft"), Unlisted: f.Bool("unlisted")}
	return fm, b.Body, b.BodyLine - 1, err
}

var (
	htmlHeading = lazyre.New(`^\s*<h([1-6])(\s[^>]*)?>(.*?)</h[1-6]>`)
	idAttr      = lazyre.New(`<[A-Za-z][^>]*?\sid=(?:"([^"]+)"|'([^']+)'|\{["']([^"']+)["']\})`)
	nameAttr    = lazyre.New(`<a\s[^>]*?\bname=(?:"([^"]+)"|'([^']+)')`)
)

// parseHeadings returns a page's headings with the ids Docusaurus gives
// them, and the other element ids (id= attributes, <a name=>) written in
// the page's HTML/JSX. Headings inside fenced code and HTML comments are
// ignored; ATX and setext headings are recognised; each page has its own
// github-slugger, and explicit ids are used verbatim without taking a slot
// in the slugger (as Docusaurus's remark plugin does). H1s and HTML
// headings without an id are kept with NoAnchor set.
//
// mdx is true for files Docusaurus compiles as MDX (every file unless the
// config's markdown.format is "detect", then .mdx only): MDX has no
// indented code, so a heading or fence indented four spaces or more is
// still one (checked by a real build).
//
// A markdown partial the page renders (docusaurus.ExpandPartials) is
// compiled on its own: its headings have a slugger of their own.
func parseHeadings(ex docusaurus.Expanded, firstLine int, mdx bool) ([]Heading, []string) {
	sluggers := map[int]*docusaurus.Slugger{}
	place := func(i int) (*docusaurus.Slugger, int, string) {
		o := docusaurus.Origin{Line: firstLine + i + 1}
		if ex.Origins != nil {
			o = ex.Origins[i]
		}
		sl, ok := sluggers[o.Instance]
		if !ok {
			sl = docusaurus.NewSlugger(docusaurus.SlugGitHub)
			sluggers[o.Instance] = sl
		}
		return sl, o.Line, o.Partial
	}
	var heads []Heading
	var ids []string
	add := func(level int, raw string, i int) {
		slugger, line, partial := place(i)
		text, id := docusaurus.SplitHeadingID(raw)
		text = MarkdownHeadingText(text)
		h := Heading{Text: text, Level: level, Line: line, Partial: partial, at: i, NoAnchor: level == 1}
		if id != "" {
			h.ID, h.Explicit = id, true
		} else {
			// An H1 still takes its slot: the remark plugin gives it an id
			// and the theme drops it when rendering.
			h.ID = slugger.Slug(text)
		}
		heads = append(heads, h)
	}
	// markText records that the current section has text of its own.
	markText := func() {
		if len(heads) > 0 {
			heads[len(heads)-1].OwnText = true
		}
	}
	for i, l := range docusaurus.ScanMarkdown(ex.Body, mdx) {
		switch {
		case l.InFence:
			markText()
			continue
		case l.Level > 0:
			add(l.Level, l.Heading, i)
			continue
		case l.SetextPart:
			continue
		}
		for _, re := range []*lazyre.Regexp{idAttr, nameAttr} {
			for _, m := range re.FindAllStringSubmatch(l.Text, -1) {
				for _, g := range m[1:] {
					if g != "" {
						ids = append(ids, g)
					}
				}
			}
		}
		if m := htmlHeading.FindStringSubmatch(l.Text); m != nil && !strings.Contains(m[2], "id=") {
			level := int(m[1][0] - '0')
			text := MarkdownHeadingText(m[3])
			_, line, partial := place(i)
			heads = append(heads, Heading{Text: text, Level: level, Line: line, Partial: partial, at: i, ID: docusaurus.GitHubSlug(text), NoAnchor: true})
			continue
		}
		// Import and export lines and a thematic break are no text: the
		// chunker gives a section holding only those no chunk of its own.
		if t := strings.TrimSpace(l.Text); t != "" && !strings.HasPrefix(t, "import ") && !strings.HasPrefix(t, "export ") && !docusaurus.ThematicBreak(l.Text) {
			markText()
		}
	}
	return heads, ids
}

// MarkdownHeadingText is the text Docusaurus slugs for a heading written in
// markdown source; see docusaurus.HeadingText, which it is.
func MarkdownHeadingText(md string) string { return docusaurus.HeadingText(md) }
