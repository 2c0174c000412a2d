package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// linkedPackage is a package linked into the ragscope binary.
type linkedPackage struct {
	path, dir      string
	files, imports []string
}

// linkedPackages lists the packages linked into the ragscope binary,
// standard library excepted.
func linkedPackages(t *testing.T) []linkedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.ImportPath}}|{{.Dir}}|{{join .GoFiles ","}}|{{join .Imports ","}}{{end}}`, "ragscope").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []linkedPackage
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Split(line, "|"); len(f) == 4 {
			pkgs = append(pkgs, linkedPackage{f[0], f[1], strings.Split(f[2], ","), strings.Split(f[3], ",")})
		}
	}
	return pkgs
}

// No package of ragscope's own builds a regular expression or a map
// literal at package level: Go initialises every linked package in every
// process, so each one is paid by `ragscope --help` and every scripted
// call (use lazyre.New, a switch or a slice instead).
func TestNothingBuiltAtInitialisation(t *testing.T) {
	checked := 0
	for _, p := range linkedPackages(t) {
		if !strings.HasPrefix(p.path, "ragscope") {
			continue
		}
		for _, name := range p.files {
			checked++
			for _, bad := range builtAtInit(t, filepath.Join(p.dir, name)) {
				t.Errorf("%s: %s is built at initialisation", bad.pos, bad.what)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files of the binary's packages", checked)
	}
}

// Dependencies whose initialisation cost every process far more than they
// gave are not linked: OpenCensus (4-5 ms; Google's auth library v0.9
// under genai linked it, v0.24 does not), glamour's chroma and bluemonday
// (30-45 ms), goldmark's root package (builds a whole Markdown with its
// HTML renderer; ragscope uses goldmark's parser alone).
func TestCostlyInitialisersNotLinked(t *testing.T) {
	banned := []string{"go.opencensus.io/", "github.com/alecthomas/chroma", "github.com/microcosm-cc/bluemonday", "charm.land/glamour", "github.com/charmbracelet/glamour", "github.com/yuin/goldmark/renderer"}
	for _, p := range linkedPackages(t) {
		if p.path == "github.com/yuin/goldmark" {
			t.Errorf("%s is linked (use goldmark/parser alone)", p.path)
		}
		for _, b := range banned {
			if strings.HasPrefix(p.path, b) {
				t.Errorf("%s is linked", p.path)
			}
		}
	}
}

// The floor program (testdata/floor, BenchmarkProcessFloor) imports
// exactly the packages of the mandated SDKs that ragscope's own packages
// import, so its start-up is the floor of ragscope's.
func TestFloorImportsTheMandatedSDKs(t *testing.T) {
	mandated := []string{"google.golang.org/genai", "github.com/openai/openai-go/v3", "github.com/qdrant/go-client", "github.com/cohere-ai/cohere-go/v2", "charm.land/bubbletea/v2", "charm.land/lipgloss/v2"}
	isMandated := func(path string) bool {
		return slices.ContainsFunc(mandated, func(m string) bool { return path == m || strings.HasPrefix(path, m+"/") })
	}
	var want []string
	for _, p := range linkedPackages(t) {
		if strings.HasPrefix(p.path, "ragscope") {
			for _, imp := range p.imports {
				if isMandated(imp) && !slices.Contains(want, imp) {
					want = append(want, imp)
				}
			}
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("testdata", "floor", "main.go"), nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		got = append(got, path)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || len(want) < len(mandated) {
		t.Errorf("the floor imports\n%q\nragscope imports, of the mandated SDKs,\n%q", got, want)
	}
}

type initFinding struct {
	pos  token.Position
	what string
}

// builtAtInit lists the package-level variables of a Go file whose
// initialiser compiles a regular expression or builds a map literal
// (function literals are skipped: their bodies run when called).
func builtAtInit(t *testing.T, path string) []initFinding {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var found []initFinding
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				ast.Inspect(v, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.FuncLit:
						return false
					case *ast.CallExpr:
						if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
							if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "regexp" {
								found = append(found, initFinding{fset.Position(n.Pos()), "regexp." + sel.Sel.Name})
							}
						}
					case *ast.CompositeLit:
						if _, ok := n.Type.(*ast.MapType); ok {
							found = append(found, initFinding{fset.Position(n.Pos()), "a map literal"})
						}
					}
					return true
				})
			}
		}
	}
	return found
}
