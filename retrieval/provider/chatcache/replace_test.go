package chatcache

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPutReplacesThroughPlatform guards the one step a test on Linux
// cannot see fail: an entry is renamed into place by
// platform.ReplaceFile, which on Windows waits while another program
// (a second ragscope reading the same entry, a virus scanner) holds the
// destination open; a bare os.Rename fails there at once and the
// judgement is lost from the cache.
func TestPutReplacesThroughPlatform(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	replaces := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case pkg.Name == "os" && sel.Sel.Name == "Rename":
				t.Errorf("%s: os.Rename moves a cache entry into place; use platform.ReplaceFile", fset.Position(sel.Pos()))
			case pkg.Name == "platform" && sel.Sel.Name == "ReplaceFile":
				replaces++
			}
			return true
		})
	}
	if replaces == 0 {
		t.Error("no platform.ReplaceFile call: Put no longer moves its finished entry into place")
	}
}
