package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// shared are what every pane may import: common and the question
// history's store.
var shared = []string{"common", "history"}

// services are the packages under ui/ that are neither panes nor shared:
// what the root alone uses (the clipboard, the browser opener, the link
// checker, the golden cases made from marks, the judge run).
var services = []string{"clipboard", "linkcheck", "goldencase", "judgerun", "browser"}

// The shape of the explorer: a pane package imports common and present,
// never another pane package nor the root; common imports no pane. The
// root package routes and holds what panes share: it stays within 4,000
// production lines and its model within 30 fields.
func TestExplorerShape(t *testing.T) {
	const (
		minPanes      = 6
		maxRootLines  = 4000
		maxRootFields = 30
	)
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var panes []string
	imports := map[string][]string{}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		imps := packageImports(t, e.Name())
		if imps == nil {
			continue
		}
		imports[e.Name()] = imps
		if !slices.Contains(shared, e.Name()) && !slices.Contains(services, e.Name()) {
			panes = append(panes, e.Name())
		}
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			other, ok := strings.CutPrefix(imp, "ragscope/ui/")
			if imp == "ragscope/ui" || (ok && !slices.Contains(shared, other)) {
				t.Errorf("ui/%s imports %s: a pane package imports only ui/common (and present), never another pane nor the root", pkg, imp)
			}
		}
	}
	if len(panes) < minPanes {
		t.Errorf("%d pane packages (%v), want at least %d", len(panes), panes, minPanes)
	}
	lines := packageLines(t, ".")
	fields := modelFields(t)
	t.Logf("pane packages %d %v; root package %d production lines (at most %d); root model %d fields (at most %d)",
		len(panes), panes, lines, maxRootLines, fields, maxRootFields)
	if lines > maxRootLines {
		t.Errorf("root package has %d production lines, over %d: move code into its pane's package", lines, maxRootLines)
	}
	checkSizes(t)
	if fields > maxRootFields {
		t.Errorf("root Model has %d fields, over %d: group what panes share", fields, maxRootFields)
	}
}

// packageImports lists the imports of dir's production files (nil when
// it holds no Go package).
func packageImports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range af.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			out = append(out, p)
		}
		if out == nil {
			out = []string{}
		}
	}
	return out
}

// packageLines counts the lines of dir's production files.
func packageLines(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(string(b), "\n")
	}
	return n
}

// modelFields counts the fields of the root Model (each name of a
// multi-name field counts).
func modelFields(t *testing.T) int {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range gd.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok || ts.Name.Name != "Model" {
					continue
				}
				n := 0
				for _, fl := range ts.Type.(*ast.StructType).Fields.List {
					n += max(len(fl.Names), 1)
				}
				return n
			}
		}
	}
	t.Fatal("no root Model")
	return 0
}

// checkSizes holds every production function under ui/ to 80 lines and
// every production file to 600.
func checkSizes(t *testing.T) {
	t.Helper()
	const maxFunc, maxFile = 80, 600
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		if n := fset.File(af.Pos()).LineCount(); n > maxFile {
			t.Errorf("%s has %d lines, over %d: split it where a step has a name", path, n, maxFile)
		}
		for _, decl := range af.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok {
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFunc {
					t.Errorf("%s: %s has %d lines, over %d", path, fd.Name.Name, n, maxFunc)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
