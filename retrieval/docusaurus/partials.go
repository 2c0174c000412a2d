package docusaurus

import (
	"io/fs"
	"path"
	"strings"

	"ragscope/internal/readlimit"
)

// maxPartialDepth bounds partials imported by partials (and cycles).
const maxPartialDepth = 4

var (
	// defaultImport is an MDX import of a file's default export:
	// import Steps from './_steps.mdx';
	defaultImport = lazyRE(`^\s*import\s+([A-Z][A-Za-z0-9_$]*)\s+from\s+['"]([^'"]+\.mdx?)['"]\s*;?\s*$`)
	// selfClosingTag is a JSX element alone on its line: <Steps />.
	selfClosingTag = lazyRE(`^\s*<([A-Z][A-Za-z0-9_$]*)(?:\s[^<>]*)?/>\s*$`)
)

// Origin is where a line of an expanded page body comes from.
type Origin struct {
	// Partial is the partial's file, "" for the page's own lines.
	Partial string
	// Line is the 1-based line in that file.
	Line int
	// Instance numbers the renderings of partials in the page, from 1;
	// 0 for the page's own lines. Each rendering is compiled apart: its
	// headings get ids from a slugger of their own.
	Instance int
}

// Expanded is a page body with the markdown partials it renders inlined
// where they are rendered, as the built page shows them.
type Expanded struct {
	// Body is the page's body, partials inlined.
	Body string
	// Origins has an entry per line of Body; nil when nothing was inlined
	// (Body is then the body given).
	Origins []Origin
}

// ExpandPartials inlines into body (the page at source, its text starting
// after firstLine lines) every markdown file it imports and renders as an
// element alone on a line (import Steps from './_steps.mdx'; ... <Steps />):
// Docusaurus publishes that file's text and headings (with ids of their
// own) as part of the page. read reads a file of the site; a file that
// cannot be read is left as the element.
//
// firstLine is the number of lines of source before body (its front
// matter); ExpandPartials is for MDX bodies (imports are MDX).
func ExpandPartials(read func(string) ([]byte, error), source, body string, firstLine int) Expanded {
	if !strings.Contains(body, "import") {
		return Expanded{Body: body}
	}
	instances := 0
	var lines []string
	var origins []Origin
	changed := false
	var walk func(file, body string, first int, inst, depth int)
	walk = func(file, body string, first int, inst, depth int) {
		imports := map[string]string{}
		scanned := ScanMarkdown(body, true)
		for _, l := range scanned {
			if l.InFence || l.Fence {
				continue
			}
			if m := defaultImport.FindStringSubmatch(l.Text); m != nil {
				if target, ok := resolveImport(file, m[2]); ok {
					imports[m[1]] = target
				}
			}
		}
		name := file
		if inst == 0 {
			name = ""
		}
		for i, l := range scanned {
			if !l.InFence && !l.Fence && len(imports) > 0 && depth < maxPartialDepth {
				if m := selfClosingTag.FindStringSubmatch(l.Text); m != nil {
					if target, ok := imports[m[1]]; ok {
						if b, err := read(target); err == nil {
							fm := SplitFrontMatter(strings.ReplaceAll(string(b), "\r\n", "\n"))
							instances++
							changed = true
							walk(target, fm.Body, fm.BodyLine-1, instances, depth+1)
							continue
						}
					}
				}
			}
			lines = append(lines, l.Text)
			origins = append(origins, Origin{Partial: name, Line: first + i + 1, Instance: inst})
		}
	}
	walk(source, body, firstLine, 0, 0)
	if !changed {
		return Expanded{Body: body}
	}
	return Expanded{Body: strings.Join(lines, "\n"), Origins: origins}
}

// resolveImport is the site path an import specifier of file names, for
// relative and @site/ specifiers.
func resolveImport(file, spec string) (string, bool) {
	switch {
	case strings.HasPrefix(spec, "./"), strings.HasPrefix(spec, "../"):
		p := path.Join(path.Dir(file), spec)
		return p, !strings.HasPrefix(p, "../")
	case strings.HasPrefix(spec, "@site/"):
		return path.Clean(strings.TrimPrefix(spec, "@site/")), true
	}
	return "", false
}

// FileReader reads the files of fsys, for ExpandPartials.
func FileReader(fsys fs.FS) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) { return readlimit.ReadFS(fsys, name, readlimit.SiteFile) }
}
