package links

import (
	"io/fs"
	"path"
	"strings"

	"ragscope/internal/lazyre"
	"ragscope/retrieval/docusaurus"
)

// maxPartialDepth bounds partials imported by partials (and cycles).
const maxPartialDepth = 4

var (
	// defaultImport is an MDX import of a file's default export:
	// import Steps from './_steps.mdx';
	defaultImport = lazyre.New(`^\s*import\s+([A-Z][A-Za-z0-9_$]*)\s+from\s+['"]([^'"]+\.mdx?)['"]\s*;?\s*$`)
	// selfClosingTag is a JSX element alone on its line: <Steps />.
	selfClosingTag = lazyre.New(`^\s*<([A-Z][A-Za-z0-9_$]*)(?:\s[^<>]*)?/>\s*$`)
)

// origin is where a line of an expanded page body comes from: the page
// (partial "") or a partial, its 1-based line there, and which rendering
// of a partial it belongs to (0 for the page's own lines).
type origin struct {
	partial  string
	line     int
	instance int
}

// expanded is a page body with the markdown partials it renders inlined
// where they are rendered, as the built page shows them.
type expanded struct {
	body    string
	origins []origin // per line of body; nil when nothing was inlined
}

// expandPartials inlines into body (the page at source, its text starting
// after firstLine lines) every markdown file it imports and renders as an
// element alone on a line (import Steps from './_steps.mdx'; ... <Steps />):
// Docusaurus publishes that file's text and headings (with ids of their
// own) as part of the page. read reads a file of the site; a file that
// cannot be read is left as the element.
func expandPartials(read func(string) ([]byte, error), source, body string, firstLine int, mdx bool) expanded {
	if !mdx || !strings.Contains(body, "import") {
		return expanded{body: body}
	}
	instances := 0
	var lines []string
	var origins []origin
	changed := false
	var walk func(file, body string, first int, inst, depth int)
	walk = func(file, body string, first int, inst, depth int) {
		imports := map[string]string{}
		scanned := docusaurus.ScanMarkdown(body, true)
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
							_, pbody, skipped, _ := splitFrontMatter(string(b))
							instances++
							changed = true
							walk(target, pbody, skipped, instances, depth+1)
							continue
						}
					}
				}
			}
			lines = append(lines, l.Text)
			origins = append(origins, origin{partial: name, line: first + i + 1, instance: inst})
		}
	}
	walk(source, body, firstLine, 0, 0)
	if !changed {
		return expanded{body: body}
	}
	return expanded{body: strings.Join(lines, "\n"), origins: origins}
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

// fileReader reads the files of fsys.
func fileReader(fsys fs.FS) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) }
}
