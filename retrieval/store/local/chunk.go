package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"ragscope/internal/lazyre"
	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

// Chunking defaults.
const (
	// DefaultDocsDir is the docs folder inside the file system given to
	// ChunkDocs and Build.
	DefaultDocsDir = "docs"
	// DefaultMaxChars is the largest chunk, in characters, before a section
	// is split on paragraph boundaries.
	DefaultMaxChars = 1500
	// minMaxChars keeps a tiny MaxChars from producing one chunk per word.
	minMaxChars = 200
)

// Sentinel errors of the chunker.
var (
	// ErrNoMarkdown: the docs folder holds no readable *.md or *.mdx file.
	ErrNoMarkdown = errors.New("no markdown files found")
	// ErrBinary: a file named .md is not text (NUL bytes or mostly invalid UTF-8).
	ErrBinary = errors.New("not a text file")
)

// ChunkOptions configures the chunker. The zero value uses the defaults.
type ChunkOptions struct {
	// DocsDir is the docs folder inside the file system (default "docs").
	DocsDir string
	// MaxChars is the largest chunk in characters (default 1500, at least 200).
	MaxChars int
	// MaxWords, when above 0, bounds chunks in words instead (at least
	// 20): MaxChars is then unused.
	MaxWords int
	// Overlap is the number of words of a chunk's end that the next chunk
	// of its section (SplitSize: of its page) repeats first (default 0).
	// The chunk size does not count them.
	Overlap int
	// Split is SplitHeadings ("", the default) or SplitSize.
	Split string
	// Warn, when set, receives the problems ChunkMarkdown worked around
	// (broken front matter, invalid UTF-8). ChunkDocs also returns them.
	Warn func(Warning)
	// Facets say how module and chapter are derived from a doc's path;
	// ChunkDocs detects the layout of the whole folder when they leave it
	// open (ChunkMarkdown, seeing one file, takes the first folder).
	Facets FacetOptions

	// layout is the docs folder's layout, set by ChunkDocs.
	layout *Layout
	// read reads the site's files and source is the doc's path among
	// them, set by ChunkDocs: an MDX doc's markdown partials are then
	// chunked where the doc renders them (docusaurus.ExpandPartials).
	read   func(string) ([]byte, error)
	source string
}

// place derives a doc's module and chapter with the folder's layout, or
// without one from the options alone.
func (o ChunkOptions) place(docPath string) place {
	if o.layout != nil {
		return o.layout.place(docPath)
	}
	return newLayout(o.Facets).place(docPath)
}

func (o ChunkOptions) docsDir() string {
	d := strings.Trim(path.Clean(strings.ReplaceAll(o.DocsDir, "\\", "/")), "/")
	if o.DocsDir == "" || d == "" {
		return DefaultDocsDir
	}
	return d
}

func (o ChunkOptions) maxChars() int {
	switch {
	case o.MaxChars <= 0:
		return DefaultMaxChars
	case o.MaxChars < minMaxChars:
		return minMaxChars
	}
	return o.MaxChars
}

func (o ChunkOptions) warn(w Warning) {
	if o.Warn != nil {
		o.Warn(w)
	}
}

// ChunkDocs chunks every *.md and *.mdx file under opts.DocsDir of fsys, in
// path order. Doc paths are "docs/<path under the docs folder>" whatever the
// folder is called, so retrieval.DocRoute maps them to the site's routes.
// Files and folders whose names start with "_" or "." are skipped, as
// Docusaurus skips them. Problems in single files are returned as warnings;
// a folder without markdown is an error matching ErrNoMarkdown. The walk
// and the chunking check ctx at every file: once it is done, ChunkDocs
// returns its error (wrapped) and no chunks.
func ChunkDocs(ctx context.Context, fsys fs.FS, opts ChunkOptions) ([]retrieval.Chunk, []Warning, error) {
	dir := opts.docsDir()
	info, err := fs.Stat(fsys, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("docs folder %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("docs folder %s is not a folder", dir)
	}
	layout, err := DetectLayout(fsys, dir, opts.Facets)
	if err != nil {
		return nil, nil, err
	}
	var warns []Warning
	fileOpts := opts
	fileOpts.layout = &layout
	fileOpts.read = docusaurus.FileReader(fsys)
	fileOpts.Warn = func(w Warning) {
		warns = append(warns, w)
		opts.warn(w)
	}
	// The folder is walked first, then its files are read and chunked
	// across the CPUs, and their chunks and warnings gathered in path
	// order: the result is the walk's, file by file.
	files, err := findPages(ctx, fsys, dir, fileOpts.Warn)
	if err != nil {
		return nil, warns, fmt.Errorf("walk docs folder %s: %w", dir, err)
	}
	results := chunkPages(ctx, fsys, files, fileOpts)
	if err := ctx.Err(); err != nil {
		return nil, warns, fmt.Errorf("chunk docs folder %s: %w", dir, err)
	}
	chunks, found, err := gatherPages(files, results, fileOpts.Warn)
	if err != nil {
		return nil, warns, fmt.Errorf("walk docs folder %s: %w", dir, err)
	}
	if found == 0 {
		return nil, warns, fmt.Errorf("%w under %s: add .md or .mdx files, or point to the folder that holds them", ErrNoMarkdown, dir)
	}
	return chunks, warns, nil
}

// pageChunks is what reading and chunking one page gave.
type pageChunks struct {
	chunks  []retrieval.Chunk
	draft   bool
	err     error
	readErr error
	warns   []Warning
}

// chunkPages reads and chunks files across the CPUs, each page's result
// (and its warnings, held back) at its index; it stops taking pages once
// ctx is done.
func chunkPages(ctx context.Context, fsys fs.FS, files []pageFile, fileOpts ChunkOptions) []pageChunks {
	results := make([]pageChunks, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(files))) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				r := &results[i]
				src, err := readPage(fsys, files[i].path)
				if err != nil {
					r.readErr = err
					continue
				}
				o := fileOpts
				o.source = files[i].path
				o.Warn = func(w Warning) { r.warns = append(r.warns, w) }
				r.chunks, r.draft, r.err = chunkMarkdown(files[i].docPath, src, o)
			}
		})
	}
	wg.Wait()
	return results
}

// gatherPages joins the pages' chunks in path order and passes on their
// warnings, each page's where it stands; an unreadable or binary page is
// skipped with a warning, any other error ends the gathering. found
// counts the pages chunked (a draft or an empty page counts).
func gatherPages(files []pageFile, results []pageChunks, warn func(Warning)) (chunks []retrieval.Chunk, found int, err error) {
	n := 0
	for _, r := range results {
		n += len(r.chunks)
	}
	chunks = make([]retrieval.Chunk, 0, n)
	for i, r := range results {
		docPath := files[i].docPath
		if r.readErr != nil {
			warn(Warning{File: docPath, Message: "cannot read: " + r.readErr.Error() + "; skipped"})
			continue
		}
		for _, w := range r.warns {
			warn(w)
		}
		if errors.Is(r.err, ErrBinary) {
			warn(Warning{File: docPath, Message: "binary content in a markdown file; skipped"})
			continue
		}
		if r.err != nil {
			return nil, found, r.err
		}
		found++
		if len(r.chunks) == 0 && !r.draft {
			warn(Warning{File: docPath, Message: "no text to index"})
		}
		chunks = append(chunks, r.chunks...)
		results[i] = pageChunks{}
	}
	return chunks, found, nil
}

// section is a run of a page under one ## or ### heading (or the intro
// before the first of them).
type section struct {
	// heading is the heading text without its explicit id ("" for the intro).
	heading string
	// headingLine is the heading as it starts each chunk's text.
	headingLine string
	// id is the HeadingID to store: the explicit id, or the computed id when
	// it carries a duplicate suffix.
	id string
	// level is the heading's level (1 to 3; 1 for the intro).
	level  int
	crumbs []string
	lines  []line
}

var mdxESM = lazyre.New(`^(import|export)\s`)

// ChunkMarkdown chunks one markdown document. docPath is its path from the
// site root ("docs/module-1/01-intro.md"); it gives each chunk's ID, module
// and chapter. A binary document returns an error matching ErrBinary; broken
// front matter is reported through opts.Warn and the rest still chunked.
//
// Each chunk's text starts with its heading line ("## Section", without an
// explicit {#id}; "# Title" for the text before the first ## heading), so
// the heading takes part in retrieval; a long section's every piece repeats
// it. Sections with no text besides their heading give no chunk.
func ChunkMarkdown(docPath string, src []byte, opts ChunkOptions) ([]retrieval.Chunk, error) {
	chunks, _, err := chunkMarkdown(docPath, src, opts)
	return chunks, err
}

// chunkMarkdown is ChunkMarkdown that also says whether the page is a
// draft (skipped, so it has no chunks and needs no "no text" warning).
func chunkMarkdown(docPath string, src []byte, opts ChunkOptions) ([]retrieval.Chunk, bool, error) {
	text, err := pageText(docPath, src, opts)
	if err != nil {
		return nil, false, err
	}
	fm, body, bodyLine, warns := splitFrontMatter(docPath, text)
	for _, w := range warns {
		opts.warn(w)
	}
	if fm.Draft {
		// Docusaurus does not publish drafts: nothing could be cited there.
		opts.warn(Warning{File: docPath, Message: "draft: true; skipped (drafts are not published)"})
		return nil, true, nil
	}
	mdx := strings.EqualFold(path.Ext(docPath), ".mdx")
	var origins []docusaurus.Origin
	if mdx && opts.read != nil {
		// The page shows the partials it renders: their text is its text.
		ex := docusaurus.ExpandPartials(opts.read, opts.source, body, bodyLine-1)
		body, origins = ex.Body, ex.Origins
	}
	lines := scanLines(body, origins)
	// Import and export lines are MDX's ESM, not text: Docusaurus compiles
	// .md files as MDX too by default, and the link checker reads them so.
	for i := range lines {
		t := lines[i].text
		if !lines[i].inFence && (strings.HasPrefix(t, "import") || strings.HasPrefix(t, "export")) && mdxESM.MatchString(t) {
			lines[i] = line{}
		}
	}

	pl := opts.place(docPath)
	module, chapter := pl.module, pl.chapter
	if fm.Module != "" {
		module, pl.moduleLabel = fm.Module, ""
	}
	if fm.Chapter != "" {
		chapter, pl.chapterLabel = fm.Chapter, ""
	}
	title := pageTitle(docPath, fm, lines)
	pageSlug := fm.Slug
	if pageSlug == "" && fm.ID != "" && !strings.Contains(fm.ID, "/") {
		// Docusaurus puts a doc with an id at "<folder>/<id>", but an index
		// doc stays at its folder: the chunk carries the slug the id gives.
		pageSlug, _ = docusaurus.DocSlug(retrieval.DocsRelPath(docPath), "", fm.ID)
	}

	sections := splitSections(lines, title)
	var chunks []retrieval.Chunk
	for _, p := range packPage(sections, opts) {
		s := &sections[p.sec]
		chunks = append(chunks, retrieval.Chunk{
			Text:        p.text,
			DocPath:     docPath,
			PageSlug:    pageSlug,
			Title:       title,
			Section:     s.heading,
			HeadingID:   s.id,
			Breadcrumb:  append([]string(nil), s.crumbs...),
			Module:      module,
			Chapter:     chapter,
			ContentType: fm.ContentType,
			Tags:        append([]string(nil), fm.Tags...),
		})
	}
	numberChunks(docPath, chunks, map[string]string{"description": fm.Description, retrieval.ExtraModuleLabel: pl.moduleLabel, retrieval.ExtraChapterLabel: pl.chapterLabel})
	return chunks, false, nil
}

// pageText is a page's bytes as the chunker reads them: refused
// (ErrBinary) when they look binary, invalid UTF-8 replaced with U+FFFD
// (with a warning), without a byte-order mark, with "\n" line ends.
func pageText(docPath string, src []byte, opts ChunkOptions) (string, error) {
	if looksBinary(src) {
		return "", fmt.Errorf("%s: %w", docPath, ErrBinary)
	}
	if !utf8.Valid(src) {
		opts.warn(Warning{File: docPath, Message: "invalid UTF-8 bytes replaced with U+FFFD"})
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	}
	text := strings.TrimPrefix(string(src), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return strings.ReplaceAll(text, "\r", "\n"), nil
}

// pageTitle is the page's title: the front matter's, else its first
// "# " heading's text, else one made from the file name.
func pageTitle(docPath string, fm frontMatter, lines []line) string {
	if fm.Title != "" {
		return fm.Title
	}
	for _, l := range lines {
		if l.level == 1 {
			t, _ := docusaurus.SplitHeadingID(l.heading)
			if title := docusaurus.HeadingText(t); title != "" {
				return title
			}
			break
		}
	}
	return fileTitle(docPath)
}

// numberChunks gives a page's chunks, in order, their IDs
// ("<docPath>#<i>"), their place among the page's chunks, the hash of
// their text, and the page's non-empty extra fields.
func numberChunks(docPath string, chunks []retrieval.Chunk, extra map[string]string) {
	for i := range chunks {
		c := &chunks[i]
		c.ID = fmt.Sprintf("%s#%d", docPath, i)
		c.ChunkIndex = retrieval.IntPtr(i)
		c.TotalChunks = retrieval.IntPtr(len(chunks))
		sum := sha256.Sum256([]byte(c.Text))
		c.ContentHash = hex.EncodeToString(sum[:])
		for k, v := range extra {
			if v == "" {
				continue
			}
			if c.Extra == nil {
				c.Extra = map[string]string{}
			}
			c.Extra[k] = v
		}
	}
}

// hasText reports a line with text (not blank, not a heading).
func hasText(lines []line) bool {
	for _, l := range lines {
		if l.level == 0 && strings.TrimSpace(l.text) != "" {
			return true
		}
	}
	return false
}

// splitSections cuts a page at its ## and ### headings, and at a # heading
// after the page's title: the section above ends there (a link to it does
// not cover what follows), and a # heading has no anchor, so its text is
// cited at the page. Every heading, at
// any level, goes through one github slugger in page order, as Docusaurus
// assigns ids, so duplicate headings get their "-1", "-2" suffixes; headings
// with an explicit id keep it and, as in Docusaurus, do not count.
//
// A partial the page renders is compiled apart: its headings have a
// slugger of their own (per rendering).
func splitSections(lines []line, title string) []section {
	sluggers := map[int]*docusaurus.Slugger{}
	intro := section{level: 1, crumbs: []string{title}}
	secs := []section{}
	cur := &intro
	h2 := ""
	for _, l := range lines {
		if l.level == 0 {
			cur.lines = append(cur.lines, l)
			continue
		}
		text, explicit := docusaurus.SplitHeadingID(l.heading)
		// plain is what Docusaurus slugs (escapes and entities resolved):
		// the section's name, so the URL builder's slug of it is the id.
		plain := docusaurus.HeadingText(text)
		id := explicit
		if explicit == "" {
			slugger, ok := sluggers[l.instance]
			if !ok {
				slugger = docusaurus.NewSlugger(docusaurus.SlugGitHub)
				sluggers[l.instance] = slugger
			}
			if computed := slugger.Slug(plain); computed != docusaurus.GitHubSlug(plain) {
				id = computed
			}
		}
		mdLine := strings.TrimSpace(strings.Repeat("#", l.level) + " " + text)
		if l.level > 3 || (l.level == 1 && cur == &intro && !hasText(intro.lines)) {
			cur.lines = append(cur.lines, line{text: mdLine, level: l.level, heading: text})
			continue
		}
		if cur != &intro {
			secs = append(secs, *cur)
		}
		crumbs := []string{title}
		switch {
		case l.level < 3:
			h2 = ""
			if l.level == 2 {
				h2 = plain
			}
		case h2 != "":
			crumbs = append(crumbs, h2)
		}
		crumbs = append(crumbs, plain)
		cur = &section{heading: plain, headingLine: mdLine, id: id, level: l.level, crumbs: crumbs}
		if l.level == 1 {
			// Docusaurus renders a # heading without an id: its text is
			// cited at the page.
			cur.heading, cur.id = "", ""
		}
	}
	if cur != &intro {
		secs = append(secs, *cur)
	}
	// The intro starts with the page's H1 when it has one, else the title.
	intro.headingLine = "# " + title
	for i, l := range intro.lines {
		if strings.TrimSpace(l.text) == "" {
			continue
		}
		if l.level == 1 {
			intro.headingLine = l.text
			intro.lines = intro.lines[i+1:]
		}
		break
	}
	return append([]section{intro}, secs...)
}

// placeOf derives module and chapter from a doc path alone: the module is
// the first folder under docs ("" for pages at the top of docs); the
// chapter is the folder below the module, or the file name without
// extension and number prefix, or for an index page its folder's name.
func placeOf(docPath string) (module, chapter string) {
	pl := newLayout(FacetOptions{}).place(docPath)
	return pl.module, pl.chapter
}

// fileTitle is the title of a page with neither front matter title nor H1.
func fileTitle(docPath string) string {
	_, chapter := placeOf(docPath)
	if chapter == "" {
		return path.Base(docPath)
	}
	return chapter
}

// looksBinary reports NUL bytes, or invalid UTF-8 in more than a tenth of
// the bytes.
func looksBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	if utf8.Valid(b) {
		return false
	}
	invalid := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
		}
		i += size
	}
	return invalid*10 > len(b)
}
