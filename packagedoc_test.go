package main

import (
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageSaysWhatItIs keeps `go doc` of every package of the
// module readable: each library package (test-support ones such as
// coheretest and storetest included) has exactly one package comment, and
// it starts "Package <name> "; each command has exactly one, starting
// "Command <name> ". It walks the module's folders as the go command
// does (testdata, hidden and _ folders and nested modules are not part of
// it), so a package added anywhere is held to the rule without a list to
// keep.
func TestEveryPackageSaysWhatItIs(t *testing.T) {
	dirs, err := moduleDirs(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range dirs {
		pkg, err := build.ImportDir(dir, 0)
		if _, ok := errors.AsType[*build.NoGoError](err); ok {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		checked++
		if msg := packageDocProblem(dir, pkg); msg != "" {
			t.Error(msg)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages found: the walk is not seeing the module", checked)
	}
}

// packageDocProblem says what is wrong with the package comment of pkg in
// dir, or "" when nothing is.
func packageDocProblem(dir string, pkg *build.Package) string {
	fset := token.NewFileSet()
	var docs []string
	var first *ast.CommentGroup
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err.Error()
		}
		if f.Doc != nil {
			docs = append(docs, name)
			first = f.Doc
		}
	}
	want := "Package " + pkg.Name + " "
	if pkg.Name == "main" {
		want = "Command "
	}
	switch {
	case len(docs) == 0:
		return dir + ": package " + pkg.Name + " has no package comment; add one (`// " + want + "is …`) above the package clause of its main file or a doc.go"
	case len(docs) > 1:
		return dir + ": package " + pkg.Name + " has package comments in " + strings.Join(docs, ", ") + "; keep one, go doc runs them together"
	case !strings.HasPrefix(first.Text(), want):
		return dir + "/" + docs[0] + ": the package comment starts " + quoteStart(first.Text()) + "; go doc wants it to start \"" + want + "…\""
	}
	return ""
}

// quoteStart quotes the first words of a comment.
func quoteStart(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return "\"" + s + "\""
}

// moduleDirs lists root and every folder below it that belongs to its Go
// module: testdata folders, folders whose name starts with "." or "_",
// and folders holding another go.mod are left out, as the go command
// leaves them out of ./... .
func moduleDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root {
			name := d.Name()
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		dirs = append(dirs, path)
		return nil
	})
	return dirs, err
}
