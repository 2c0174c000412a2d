package local

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"sort"
	"strings"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

// FacetOptions say how a doc's module and chapter are derived from its
// path under the docs folder. The zero value detects the layout.
type FacetOptions struct {
	// ModuleDepth is the folder level under docs that names the module (1:
	// docs/<module>/…, 2: docs/modules/<module>/…). 0 detects it: the
	// first level that holds more than one folder, descending through a
	// level that holds a single folder with subfolders (docs/modules/).
	ModuleDepth int
	// ModulePrefixes maps a path under docs ("modules/module-1", no
	// leading "docs/") to a module name; the longest matching prefix wins
	// over ModuleDepth, and the chapter is read below the prefix.
	ModulePrefixes map[string]string
}

// Layout is how module and chapter are derived for one docs folder; see
// DetectLayout.
type Layout struct {
	// Depth is the folder level under docs that names the module (1-based).
	Depth int
	// Detected is true when Depth was detected rather than configured.
	Detected bool
	// Prefixes are the configured path prefix -> module overrides.
	Prefixes map[string]string
	// labels maps a folder under docs ("modules/module-1") to its
	// _category_ label.
	labels map[string]string
	// suspect is a detected module folder that holds most of the docs in
	// subfolders of its own ("modules" beside "appendix"), and share its
	// part of the docs in module folders.
	suspect string
	share   float64
	// wrappers are the detected folders at Depth ("modules") whose
	// subfolders are the modules: folders named as containers of modules
	// (containerName: "modules", "chapters", "weeks", …) or holding most
	// of the docs,
	// with two or more subfolders of docs and at most one page of their
	// own.
	wrappers map[string]bool
}

// containerName reports a folder name that holds modules rather than
// names one.
func containerName(name string) bool {
	switch name {
	case "modules", "module", "chapters", "chapter", "parts", "units", "lessons", "weeks",
		"sections", "courses", "tracks", "topics", "books":
		return true
	}
	return false
}

// newLayout is the layout opts configure, before any folder is read.
func newLayout(opts FacetOptions) Layout {
	l := Layout{Depth: opts.ModuleDepth, Prefixes: map[string]string{}, labels: map[string]string{}}
	for k, v := range opts.ModulePrefixes {
		k = strings.TrimPrefix(strings.ReplaceAll(k, "\\", "/"), "docs/")
		l.Prefixes[strings.Trim(path.Clean("/"+k), "/")] = v
	}
	return l
}

// place is what a doc's path says about where it sits in the book.
type place struct {
	module, chapter           string
	moduleLabel, chapterLabel string
}

// DetectLayout reads the folder structure of the docs folder dir of fsys
// (only the folders that hold docs, skipping "_" and "." names as
// Docusaurus does) and the labels of its _category_.json/.yml files, and
// returns the layout that opts configure or, without one, the layout the
// folders show.
func DetectLayout(fsys fs.FS, dir string, opts FacetOptions) (Layout, error) {
	l := newLayout(opts)
	var docs [][]string // folder segments of each doc
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		if p != dir && (strings.HasPrefix(d.Name(), "_") || strings.HasPrefix(d.Name(), ".")) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != dir {
				if label := categoryLabel(fsys, p); label != "" {
					l.labels[rel] = label
				}
			}
			return nil
		}
		if isMarkdownName(d.Name()) {
			docs = append(docs, strings.Split(path.Dir(rel), "/"))
		}
		return nil
	})
	if err != nil {
		return l, fmt.Errorf("read docs folder layout: %w", err)
	}
	if l.Depth <= 0 {
		l.Depth, l.Detected = detectDepth(docs), true
		l.suspect, l.share = suspectContainer(docs, l.Depth)
		l.wrappers = findWrappers(docs, l.Depth, l.suspect)
		if l.wrappers[l.suspect] {
			l.suspect = ""
		}
	}
	return l, nil
}

// dominantShare is the part of the docs one module folder may hold, in
// subfolders of its own, before it is suspected of holding the modules.
const dominantShare = 0.8

// suspectContainer returns the module folder (at depth) that holds at
// least dominantShare of the docs in module folders and has two or more
// subfolders with docs, with that share: docs/modules/module-N/ beside
// docs/appendix/ makes the first level vary, and "modules" is taken for
// one module.
func suspectContainer(docs [][]string, depth int) (string, float64) {
	groups := map[string]int{}
	subs := map[string]map[string]bool{}
	total := 0
	for _, segs := range docs {
		if len(segs) < depth || (len(segs) == 1 && segs[0] == ".") {
			continue
		}
		g := strings.Join(segs[:depth], "/")
		groups[g]++
		total++
		if len(segs) > depth {
			if subs[g] == nil {
				subs[g] = map[string]bool{}
			}
			subs[g][segs[depth]] = true
		}
	}
	if len(groups) < 2 {
		return "", 0
	}
	for g, n := range groups {
		if share := float64(n) / float64(total); share >= dominantShare && len(subs[g]) >= 2 {
			return g, share
		}
	}
	return "", 0
}

// findWrappers returns the folders at depth that wrap modules: named as
// a container of modules (containerNames) or the suspect (most of the
// docs), with two or more subfolders holding docs and at most one doc of
// their own (an overview page).
func findWrappers(docs [][]string, depth int, suspect string) map[string]bool {
	own := map[string]int{}
	subs := map[string]map[string]bool{}
	for _, segs := range docs {
		if len(segs) < depth || (len(segs) == 1 && segs[0] == ".") {
			continue
		}
		g := strings.Join(segs[:depth], "/")
		if len(segs) == depth {
			own[g]++
			continue
		}
		if subs[g] == nil {
			subs[g] = map[string]bool{}
		}
		subs[g][segs[depth]] = true
	}
	out := map[string]bool{}
	for g, ss := range subs {
		name := strings.ToLower(docusaurus.StripNumberPrefix(path.Base(g)))
		if len(ss) >= 2 && own[g] <= 1 && (containerName(name) || g == suspect) {
			out[g] = true
		}
	}
	return out
}

// detectDepth is the first folder level that varies: while every doc in a
// subfolder sits under one single folder that has subfolders of its own
// (docs/modules/module-1/…), the modules are one level further down.
func detectDepth(docs [][]string) int {
	const maxDepth = 6
	prefix := []string{}
	for depth := 1; depth < maxDepth; depth++ {
		folders := map[string]bool{}
		deeper := false
		for _, segs := range docs {
			if len(segs) == 1 && segs[0] == "." || !hasPrefix(segs, prefix) || len(segs) < depth {
				continue
			}
			folders[segs[depth-1]] = true
			deeper = deeper || len(segs) > depth
		}
		if len(folders) != 1 || !deeper {
			return depth
		}
		for f := range folders {
			prefix = append(prefix, f)
		}
	}
	return maxDepth
}

func hasPrefix(segs, prefix []string) bool {
	if len(segs) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		if segs[i] != p {
			return false
		}
	}
	return true
}

// categoryLabel is the label of a folder's _category_.json, .yml or
// .yaml, or "".
func categoryLabel(fsys fs.FS, dir string) string {
	cat, _, err := docusaurus.ReadCategory(fsys, dir)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(cat.Label)
}

// Describe says in words how the layout places docs in modules, for stats
// and build notes.
func (l Layout) Describe() string {
	var b strings.Builder
	how := "set by facets.module_dir_depth"
	if l.Detected {
		how = "detected from the folders"
	}
	fmt.Fprintf(&b, "module = folder level %d under docs", l.Depth)
	if len(l.wrappers) > 0 {
		ws := make([]string, 0, len(l.wrappers))
		for w := range l.wrappers {
			ws = append(ws, "docs/"+w+"/")
		}
		sort.Strings(ws)
		fmt.Fprintf(&b, ", the folders under %s", strings.Join(ws, " and "))
	}
	fmt.Fprintf(&b, " (%s)", how)
	if l.suspect != "" {
		fmt.Fprintf(&b, "; docs/%s/ holds %.0f%% of the docs in subfolders: if they are the modules, set [facets] module_dir_depth = %d or map folders under [facets.modules] in ragscope.toml", l.suspect, 100*l.share, l.Depth+1)
	}
	if len(l.Prefixes) > 0 {
		keys := make([]string, 0, len(l.Prefixes))
		for k := range l.Prefixes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "/ -> " + l.Prefixes[k]
		}
		fmt.Fprintf(&b, "; overrides: %s", strings.Join(parts, ", "))
	}
	return b.String()
}

// place derives a doc's module and chapter, with their sidebar labels,
// from its doc path ("docs/modules/module-1/ch-1/01-intro.md"): the module
// is the configured prefix's name or the folder at the layout's depth
// (none for docs above it); the chapter is the folder below the module
// when the doc sits deeper, else the file name without its number prefix
// (an index page takes its folder's name).
func (l Layout) place(docPath string) place {
	rel := strings.ReplaceAll(docPath, "\\", "/")
	if i := strings.LastIndex("/"+rel, "/docs/"); i >= 0 {
		rel = ("/" + rel)[i+len("/docs/"):]
	}
	segs := strings.Split(strings.Trim(rel, "/"), "/")
	folders := segs[:len(segs)-1]
	var pl place
	base := -1 // index of the module's folder in folders
	best := ""
	for prefix, name := range l.Prefixes {
		ps := strings.Split(prefix, "/")
		if hasPrefix(folders, ps) && len(prefix) > len(best) {
			best, pl.module, base = prefix, name, len(ps)-1
		}
	}
	if best == "" {
		depth := max(l.Depth, 1)
		if len(folders) >= depth && l.wrappers[strings.Join(folders[:depth], "/")] {
			// A page of the wrapper itself belongs to no module.
			depth++
		}
		if len(folders) >= depth {
			base = depth - 1
			pl.module = folders[base]
			pl.moduleLabel = l.labels[strings.Join(folders[:base+1], "/")]
		}
	}
	stem := strings.TrimSuffix(segs[len(segs)-1], path.Ext(segs[len(segs)-1]))
	pl.chapter = docusaurus.StripNumberPrefix(stem)
	switch {
	case base >= 0 && len(folders) > base+1:
		// A chapter folder inside the module.
		pl.chapter = docusaurus.StripNumberPrefix(folders[base+1])
		pl.chapterLabel = l.labels[strings.Join(folders[:base+2], "/")]
	case len(folders) > 0:
		folder := docusaurus.StripNumberPrefix(folders[len(folders)-1])
		if c := strings.ToLower(pl.chapter); c == "index" || c == "readme" || pl.chapter == folder {
			pl.chapter = folder
		}
	}
	return pl
}

// addFacetLabels records c's module and chapter labels (from its Extra)
// in labels (field -> value -> label), allocating it on first use.
func addFacetLabels(labels map[string]map[string]string, c *retrieval.Chunk) map[string]map[string]string {
	for _, f := range []struct{ field, value, label string }{
		{"module", c.Module, c.Extra[retrieval.ExtraModuleLabel]},
		{"chapter", c.Chapter, c.Extra[retrieval.ExtraChapterLabel]},
	} {
		if f.value == "" || f.label == "" {
			continue
		}
		if labels == nil {
			labels = map[string]map[string]string{}
		}
		if labels[f.field] == nil {
			labels[f.field] = map[string]string{}
		}
		labels[f.field][f.value] = f.label
	}
	return labels
}

func cloneLabels(in map[string]map[string]string) map[string]map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]map[string]string, len(in))
	for k, v := range in {
		out[k] = maps.Clone(v)
	}
	return out
}
