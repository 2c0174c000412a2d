package local

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
)

// facetsOf chunks fsys's docs and returns "module|chapter|module label|
// chapter label" per doc path.
func facetsOf(t *testing.T, fsys fstest.MapFS, opts FacetOptions) map[string]string {
	t.Helper()
	cs, _, err := ChunkDocs(t.Context(), fsys, ChunkOptions{Facets: opts})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range cs {
		out[c.DocPath] = strings.Join([]string{c.Module, c.Chapter, c.Extra[retrieval.ExtraModuleLabel], c.Extra[retrieval.ExtraChapterLabel]}, "|")
	}
	return out
}

func md(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

const page = "# Page\n\nSome text of the page.\n"

func checkFacets(t *testing.T, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: module|chapter|labels = %q, want %q", p, got[p], w)
		}
	}
}

// The textbook layout docs/modules/module-N/: the module is module-N (not
// "modules"), labelled from its _category_ file; a chapter folder under a
// module is the chapter.
func TestFacetsModulesFolderLayout(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/intro.md":                                  md(page),
		"docs/modules/index.md":                          md(page),
		"docs/modules/module-1/_category_.json":          md(`{"label": "Module 1: ROS 2", "position": 1}`),
		"docs/modules/module-1/01-nodes.md":              md(page),
		"docs/modules/module-1/02-topics.md":             md(page),
		"docs/modules/module-2/_category_.yml":           md("label: 'Module 2: Simulation'\nposition: 2\n"),
		"docs/modules/module-2/index.md":                 md(page),
		"docs/modules/module-2/03-gazebo/_category_.yml": md("label: Gazebo\n"),
		"docs/modules/module-2/03-gazebo/01-worlds.md":   md(page),
	}
	got := facetsOf(t, fsys, FacetOptions{})
	checkFacets(t, got, map[string]string{
		"docs/intro.md":                                "|intro||",
		"docs/modules/index.md":                        "|modules||",
		"docs/modules/module-1/01-nodes.md":            "module-1|nodes|Module 1: ROS 2|",
		"docs/modules/module-1/02-topics.md":           "module-1|topics|Module 1: ROS 2|",
		"docs/modules/module-2/index.md":               "module-2|module-2|Module 2: Simulation|",
		"docs/modules/module-2/03-gazebo/01-worlds.md": "module-2|gazebo|Module 2: Simulation|Gazebo",
	})
	// The configured depth and prefixes win over detection.
	got = facetsOf(t, fsys, FacetOptions{ModuleDepth: 1})
	checkFacets(t, got, map[string]string{"docs/modules/module-1/01-nodes.md": "modules|module-1||Module 1: ROS 2"})
	got = facetsOf(t, fsys, FacetOptions{ModulePrefixes: map[string]string{"docs/modules/module-2/03-gazebo": "sim", "modules/module-1/": "ros"}})
	checkFacets(t, got, map[string]string{
		"docs/modules/module-1/01-nodes.md":            "ros|nodes||",
		"docs/modules/module-2/03-gazebo/01-worlds.md": "sim|worlds||",
		"docs/modules/module-2/index.md":               "module-2|module-2|Module 2: Simulation|",
	})
}

// docs/module-N/ keeps the first folder; a flat layout has no module.
func TestFacetsModuleAndFlatLayouts(t *testing.T) {
	got := facetsOf(t, fstest.MapFS{
		"docs/intro.md":             md(page),
		"docs/module-1/01-a.md":     md(page),
		"docs/module-2/01-b.md":     md(page),
		"docs/module-2/sub/02-c.md": md(page),
	}, FacetOptions{})
	checkFacets(t, got, map[string]string{
		"docs/intro.md":             "|intro||",
		"docs/module-1/01-a.md":     "module-1|a||",
		"docs/module-2/sub/02-c.md": "module-2|sub||",
	})
	got = facetsOf(t, fstest.MapFS{"docs/01-a.md": md(page), "docs/b.md": md(page)}, FacetOptions{})
	checkFacets(t, got, map[string]string{"docs/01-a.md": "|a||", "docs/b.md": "|b||"})
	// One folder with no subfolders is the module.
	got = facetsOf(t, fstest.MapFS{"docs/intro.md": md(page), "docs/tutorial/01-a.md": md(page)}, FacetOptions{})
	checkFacets(t, got, map[string]string{"docs/tutorial/01-a.md": "tutorial|a||"})
	// Front matter still wins, and drops the folder's label.
	got = facetsOf(t, fstest.MapFS{
		"docs/m1/_category_.json": md(`{"label": "M1"}`),
		"docs/m1/a.md":            md("---\nmodule: custom\n---\n" + page),
		"docs/m2/b.md":            md(page),
	}, FacetOptions{})
	checkFacets(t, got, map[string]string{"docs/m1/a.md": "custom|a||"})
}

func TestDetectLayoutDescribe(t *testing.T) {
	l, err := DetectLayout(fstest.MapFS{"docs/modules/m1/a.md": md(page), "docs/modules/m2/b.md": md(page)}, "docs", FacetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Depth != 2 || !l.Detected || !strings.Contains(l.Describe(), "folder level 2 under docs (detected") {
		t.Errorf("layout %+v: %s", l, l.Describe())
	}
	l, _ = DetectLayout(fstest.MapFS{"docs/a.md": md(page)}, "docs", FacetOptions{ModuleDepth: 3, ModulePrefixes: map[string]string{"x": "y"}})
	if l.Depth != 3 || l.Detected || !strings.Contains(l.Describe(), "x/ -> y") {
		t.Errorf("configured layout %+v: %s", l, l.Describe())
	}
}

func TestDetectLayoutSuspectsAModulesFolder(t *testing.T) {
	// A folder of most docs, with pages of its own: suspected, not taken.
	fsys := fstest.MapFS{"docs/appendix/a.md": md(page), "docs/modules/p.md": md(page), "docs/modules/q.md": md(page)}
	for i := range 3 {
		fsys[fmt.Sprintf("docs/modules/module-%d/x.md", i)] = md(page)
	}
	l, err := DetectLayout(fsys, "docs", FacetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Depth != 1 || !strings.Contains(l.Describe(), "docs/modules/ holds 83% of the docs in subfolders") || !strings.Contains(l.Describe(), "module_dir_depth = 2") {
		t.Errorf("layout %+v: %s", l, l.Describe())
	}
	// A wrapper folder: the modules are the folders under it, pages
	// outside it keep their own folder as module (or none), and a page of
	// the wrapper itself has none.
	fsys = fstest.MapFS{"docs/intro.md": md(page), "docs/capstone/a.md": md(page), "docs/modules/index.md": md(page),
		"docs/modules/module-2-digital-twin/_category_.json": md(`{"label": "Digital twin"}`)}
	for i := range 3 {
		fsys[fmt.Sprintf("docs/modules/module-%d-x/ch-%d/x.md", i, i)] = md(page)
		fsys[fmt.Sprintf("docs/chapters/c%d/x.md", i)] = md(page)
	}
	fsys["docs/modules/module-2-digital-twin/intro.md"] = md(page)
	l, _ = DetectLayout(fsys, "docs", FacetOptions{})
	if !strings.Contains(l.Describe(), "module = folder level 1 under docs, the folders under docs/chapters/ and docs/modules/ (detected") {
		t.Errorf("wrappers: %s", l.Describe())
	}
	for doc, want := range map[string]string{
		"docs/intro.md": "|intro||", "docs/capstone/a.md": "capstone|a||", "docs/modules/index.md": "|modules||",
		"docs/modules/module-0-x/ch-0/x.md": "module-0-x|ch-0||", "docs/chapters/c1/x.md": "c1|x||",
		"docs/modules/module-2-digital-twin/intro.md": "module-2-digital-twin|intro|Digital twin|",
	} {
		pl := l.place(doc)
		if got := pl.module + "|" + pl.chapter + "|" + pl.moduleLabel + "|" + pl.chapterLabel; got != want {
			t.Errorf("%s: %s, want %s", doc, got, want)
		}
	}
	// The override still wins.
	l, _ = DetectLayout(fsys, "docs", FacetOptions{ModuleDepth: 1})
	if pl := l.place("docs/modules/module-0-x/ch-0/x.md"); pl.module != "modules" {
		t.Errorf("module_dir_depth = 1: module %q", pl.module)
	}
	// Balanced modules raise no suspicion.
	l, _ = DetectLayout(fstest.MapFS{"docs/m1/a/x.md": md(page), "docs/m1/b/y.md": md(page), "docs/m2/z.md": md(page)}, "docs", FacetOptions{})
	if strings.Contains(l.Describe(), "holds") {
		t.Errorf("balanced: %s", l.Describe())
	}
}
